/**
 * The file `kube-sim --config FILE` reads: what the simulated cluster runs for each image, which
 * manifests it applies once it listens, and a notice it prints for whoever started it. Paths in
 * it (a runtime's `cwd`, the manifests) are relative to the file's own folder, so a project can
 * keep one beside its manifests and start the simulator from anywhere.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { load } from "js-yaml";
import { z } from "zod";
import type { CommandRuntimeSpec } from "../kubelet/commandRuntime.ts";
import { commandRuntime } from "../kubelet/commandRuntime.ts";
import type { RuntimeMap } from "../kubelet/runtimes.ts";

const runtimeSchema = z.strictObject({
  command: z.array(z.string().min(1)).min(1),
  env: z.record(z.string().min(1), z.string()).optional(),
  cwd: z.string().min(1).optional(),
});

const configSchema = z.strictObject({
  /** image (with or without its tag) → what a container of that image runs. */
  runtimes: z.record(z.string().min(1), runtimeSchema).default({}),
  /** Manifests (YAML, several documents each) applied in order once the server listens. */
  apply: z.array(z.string().min(1)).default([]),
  /** Printed after the listening line; `$(KUBECONFIG)` and `$(URL)` are filled in. */
  notice: z.string().optional(),
});

export interface SimConfig {
  readonly runtimes: RuntimeMap;
  /** What `runtimes` says, for the start-up summary. */
  readonly runtimeSpecs: Readonly<Record<string, CommandRuntimeSpec>>;
  /** Absolute paths. */
  readonly apply: readonly string[];
  readonly notice: string | undefined;
}

/** Reads and checks the file; a file that does not fit throws, naming the field. */
export function loadSimConfig(path: string): SimConfig {
  const folder = dirname(resolve(path));
  const parsed = configSchema.safeParse(load(readFileSync(path, "utf8")));
  if (!parsed.success) {
    throw new Error(`${path} is not a kube-sim config: ${z.prettifyError(parsed.error)}`);
  }
  const runtimeSpecs = Object.fromEntries(
    Object.entries(parsed.data.runtimes).map(([image, spec]) => [
      image,
      { ...spec, ...(spec.cwd === undefined ? {} : { cwd: resolve(folder, spec.cwd) }) },
    ]),
  );
  return {
    runtimes: Object.fromEntries(
      Object.entries(runtimeSpecs).map(([image, spec]) => [image, commandRuntime(spec)]),
    ),
    runtimeSpecs,
    apply: parsed.data.apply.map((file) => resolve(folder, file)),
    notice: parsed.data.notice,
  };
}
