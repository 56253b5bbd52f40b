import { assertNever } from "../lease/errors.ts";
import { BackendRegistry, type BackendKind } from "../spawner/backendRegistry.ts";
import { LocalBackend } from "./local/localBackend.ts";
import type { LocalBackendOptions } from "./local/localSettings.ts";

/** The configured backends, and the local one by its own type (the worker's rotation probes it). */
export interface ConfiguredBackends {
  readonly registry: BackendRegistry;
  readonly local: LocalBackend | undefined;
}

/**
 * The one place api, worker and launcher build their backends: BERTH_BACKEND (validated in
 * env.ts) picks the kind new boxes come from. `local` is undefined where this process manages no
 * local boxes (a worker without BERTH_SECRET): then no backend is configured, and a lease's box
 * call is refused as backend_not_configured rather than guessed.
 */
export function backendsFromEnv(options: {
  readonly env: { readonly BERTH_BACKEND: BackendKind };
  readonly local: LocalBackendOptions | undefined;
}): ConfiguredBackends {
  switch (options.env.BERTH_BACKEND) {
    case "local": {
      const local = options.local === undefined ? undefined : new LocalBackend(options.local);
      return { registry: new BackendRegistry({ local }), local };
    }
    case "kubernetes":
      // env.ts refuses it at start; this guards a caller that skipped validation.
      throw new Error(
        "BERTH_BACKEND=kubernetes cannot be configured yet: its backend adapter arrives in part 3 (issue 37)",
      );
    default:
      return assertNever(options.env.BERTH_BACKEND);
  }
}
