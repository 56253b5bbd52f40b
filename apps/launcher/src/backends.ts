import { formatEnvProblems } from "@berth/validators";
import {
  backendEnvShape,
  backendsFromEnv,
  checkKubeEnv,
  type BackendKind,
  type BackendRegistry,
} from "@berth/sandbox";
import type { Logger } from "pino";
import { z } from "zod";

const backendEnvSchema = z.object(backendEnvShape).superRefine(checkKubeEnv);

/**
 * The backends as web and worker will build them from the same env (BERTH_BACKEND, KUBECONFIG,
 * BERTH_KUBE_*), built here first so that a configuration they would refuse — a missing template,
 * an unloadable kubeconfig, an unisolated cluster without BERTH_ALLOW_UNISOLATED=1 — stops the
 * start before any child runs, saying what to set. Contacts no cluster.
 *
 * @throws Error naming what to set
 */
export function launcherBackends(options: {
  env: NodeJS.ProcessEnv;
  dataDir: string;
  secret: string;
  installationId: string;
  logger: Logger;
}): { registry: BackendRegistry; defaultBackend: BackendKind } {
  const parsed = backendEnvSchema.safeParse(options.env);
  if (!parsed.success) throw new Error(formatEnvProblems("berth start", parsed.error).trim());
  const installationId = () => Promise.resolve(options.installationId);
  const { registry } = backendsFromEnv({
    env: parsed.data,
    local: {
      dataDir: options.dataDir,
      secret: options.secret,
      isolation: "auto",
      logger: options.logger,
      installationId,
    },
    kubernetes: { secret: options.secret, installationId },
  });
  return { registry, defaultBackend: parsed.data.BERTH_BACKEND };
}
