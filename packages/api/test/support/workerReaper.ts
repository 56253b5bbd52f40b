// The reaper as the worker builds it from its env (backends, archive store, drain port), over a
// test suite's database: tests drain boxes exactly as production does, on a clock they choose.
import {
  archiveStoreFromEnv,
  backendDrainPort,
  backendsFromEnv,
  leaseConfigFromEnv,
  ReaperSystem,
  WorkspaceArchiver,
} from "@berth/sandbox";
import type { Clock } from "@berth/sandbox/clock";
import type { DbClient } from "@berth/db";
import { apiEnvSchema } from "../../src/index.ts";
import { testSecret } from "./testApi.ts";

export function workerReaper(
  suite: { readonly db: DbClient; readonly databaseUrl: string; readonly dataDir: string },
  options: { readonly clock: Clock; readonly env?: Record<string, string> },
): ReaperSystem {
  const env = apiEnvSchema.parse({
    DATABASE_URL: suite.databaseUrl,
    BERTH_SECRET: testSecret,
    BERTH_PUBLIC_URL: "http://127.0.0.1:3000",
    BERTH_DATA_DIR: suite.dataDir,
    ...options.env,
  });
  const resources = { db: suite.db, clock: options.clock, config: leaseConfigFromEnv(env) };
  const installationId = () =>
    suite.db.installation.findFirstOrThrow().then((installation) => installation.id);
  const { registry: backends } = backendsFromEnv({
    env,
    local: { dataDir: suite.dataDir, secret: testSecret, isolation: "auto", installationId },
    kubernetes: { secret: testSecret, installationId },
  });
  const archiver = new WorkspaceArchiver({
    resources,
    backends,
    store: archiveStoreFromEnv(env, suite.db),
  });
  return new ReaperSystem({ resources, drainPort: backendDrainPort({ backends, archiver }) });
}
