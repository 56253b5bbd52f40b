// `pnpm db:migrate`: applies pending migrations to DATABASE_URL, one JSON line per step.
import { readDbEnv } from "../env.ts";
import { redactDatabaseUrl } from "../url.ts";
import { applyMigrations } from "./runner.ts";

function log(fields: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), ...fields })}\n`);
}

try {
  const env = readDbEnv();
  log({ msg: "migrate: start", database: redactDatabaseUrl(env.DATABASE_URL) });
  const result = await applyMigrations({
    connectionString: env.DATABASE_URL,
    onEvent: (event) => log({ msg: `migrate: ${event.kind}`, ...event }),
  });
  for (const name of result.unknown) {
    log({
      level: "warn",
      msg: "migrate: applied migration missing from the folder",
      migration: name,
    });
  }
  log({
    msg: "migrate: done",
    applied: result.applied.length,
    alreadyApplied: result.alreadyApplied.length,
  });
} catch (error) {
  log({ level: "error", msg: error instanceof Error ? error.message : String(error) });
  process.exitCode = 1;
}
