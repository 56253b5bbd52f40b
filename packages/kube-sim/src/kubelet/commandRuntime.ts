/**
 * A runtime written as data (a command, env and working folder, as a config file gives them)
 * rather than as a function: `$(VAR)` in the command and the env values is expanded from the
 * container's environment, as a kubelet expands a container's command, args and env. That is how
 * a runtime reaches what only the pod knows, e.g. `$(KUBE_SIM_VOLUME_WORKSPACE)` for the folder
 * behind a volume or `$(POD_IP)`.
 */
import type { Runtime } from "./runtimes.ts";

export interface CommandRuntimeSpec {
  /** argv: the executable first. */
  readonly command: readonly string[];
  /** Added to (and overriding) the container's env, after expansion. */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/**
 * Kubernetes' expansion rules (K `third_party/forked/golang/expansion`): `$(NAME)` becomes the
 * variable's value, `$$` a literal `$`; a reference to an unset variable, or an unclosed one, is
 * left as written, so a typo shows up in the process's argv instead of vanishing.
 */
export function expandVariables(text: string, env: Readonly<Record<string, string>>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name?: string) => {
    if (name === undefined) return "$";
    return env[name] ?? match;
  });
}

/** The Runtime that runs `spec` with its `$(VAR)` references expanded per container. */
export function commandRuntime(spec: CommandRuntimeSpec): Runtime {
  return (context) => {
    // Env entries may use the container's env but not one another: their order is not the
    // file's concern (a kubelet allows earlier entries; a map has no order to rely on).
    const env = Object.fromEntries(
      Object.entries(spec.env ?? {}).map(([key, value]) => [
        key,
        expandVariables(value, context.env),
      ]),
    );
    const scope = { ...context.env, ...env };
    return {
      command: spec.command.map((part) => expandVariables(part, scope)),
      env,
      ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
    };
  };
}
