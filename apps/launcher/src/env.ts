import { join, resolve } from "node:path";
import { z } from "zod";

/** The launcher's configuration: where the database is (or where to keep the embedded one). */
export const launcherEnvSchema = z
  .object({
    DATABASE_URL: z
      .url({
        protocol: /^postgres(ql)?$/,
        error:
          "must be a postgresql:// URL, e.g. postgresql://postgres:postgres@127.0.0.1:5432/berth",
      })
      .optional(),
    BERTH_DATA_DIR: z.string().min(1).default(".data"),
    /**
     * The filesystem archive folder (default: <BERTH_DATA_DIR>/archives), passed to web and worker;
     * a BERTH_ARCHIVE_URL they inherit wins over it (see the README, "Archives").
     */
    BERTH_ARCHIVE_DIR: z.string().min(1).optional(),
    PORT: z.coerce.number().int().min(1).max(65_535).default(3000),
    HOST: z.string().min(1).default("127.0.0.1"),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace"]).default("info"),
    /** The key box tokens derive from; without it one is kept in the data folder. */
    BERTH_SECRET: z.string().min(32, { error: "must be at least 32 characters" }).optional(),
    /** `demo` seeds a demo workspace, its admin account and a box; `production` seeds nothing. */
    BERTH_MODE: z.enum(["demo", "production"]).default("demo"),
    /** The demo admin's password (default: derived from BERTH_SECRET); only read in demo mode. */
    BERTH_DEMO_PASSWORD: z.string().min(8, { error: "must be at least 8 characters" }).optional(),
    /** Where people reach the dashboard (default: http://HOST:PORT); https makes cookies Secure. */
    BERTH_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Whether the demo session gets a real local box at start. */
    BERTH_DEMO_BOX: z.enum(["on", "off"]).default("on"),
  })
  .refine((env) => env.BERTH_MODE !== "production" || env.BERTH_SECRET !== undefined, {
    path: ["BERTH_SECRET"],
    error:
      "must be set in production mode (every replica needs the same key); e.g. `openssl rand -hex 32`",
  });

export type LauncherEnv = z.infer<typeof launcherEnvSchema> & {
  readonly dataDir: string;
  readonly archiveDir: string;
};

export function readLauncherEnv(source: NodeJS.ProcessEnv = process.env) {
  const parsed = launcherEnvSchema.safeParse(source);
  if (!parsed.success) return parsed;
  return {
    success: true as const,
    data: {
      ...parsed.data,
      dataDir: resolve(parsed.data.BERTH_DATA_DIR),
      archiveDir: resolve(
        parsed.data.BERTH_ARCHIVE_DIR ?? join(parsed.data.BERTH_DATA_DIR, "archives"),
      ),
    },
  };
}

/** The environment children inherit, before the launcher adds what it decided. */
export function inheritedEnv(): NodeJS.ProcessEnv {
  return { ...process.env };
}
