import pg from "pg";

/** Runs `work` on a short-lived connection to the admin database. */
export async function withAdminClient<T>(
  url: string,
  work: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Quotes a database name we generated ourselves (letters, digits, underscores only). */
export function quoteIdent(name: string): string {
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`Refusing unexpected database name: ${name}`);
  return `"${name}"`;
}
