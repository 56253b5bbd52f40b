import { z } from "zod";

/** Variables the database layer reads. Processes compose this into their own env schema. */
export const dbEnvSchema = z.object({
  DATABASE_URL: z.url({
    protocol: /^postgres(ql)?$/,
    error: (issue) =>
      issue.input === undefined
        ? "is required: a PostgreSQL URL, e.g. postgresql://postgres:postgres@127.0.0.1:5432/berth"
        : "must be a postgresql:// URL, e.g. postgresql://postgres:postgres@127.0.0.1:5432/berth",
  }),
});

/** Variables Berth's database tests read: the server on which they create scratch databases. */
export const dbTestEnvSchema = z.object({
  BERTH_TEST_DATABASE_URL: z
    .url()
    .default("postgresql://postgres:postgres@127.0.0.1:5432/postgres"),
});

export type DbEnv = z.infer<typeof dbEnvSchema>;

/** Validates the database variables once; throws one error naming every problem. */
export function readDbEnv(source: NodeJS.ProcessEnv = process.env): DbEnv {
  return parseEnv(dbEnvSchema, source);
}

/** The admin URL tests use to create and drop their databases. */
export function readTestAdminUrl(source: NodeJS.ProcessEnv = process.env): string {
  return parseEnv(dbTestEnvSchema, source).BERTH_TEST_DATABASE_URL;
}

function parseEnv<TSchema extends z.ZodType>(
  schema: TSchema,
  source: NodeJS.ProcessEnv,
): z.infer<TSchema> {
  const parsed = schema.safeParse(source);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `  ${issue.path.join(".")}: ${issue.message}`,
  );
  throw new Error(`Invalid environment:\n${problems.join("\n")}`);
}
