import { ensureDemoIdentity } from "@berth/api";
import { createDbClient } from "@berth/db";

/** The demo workspace and its admin a first start opens on; created once, left alone afterwards. */
export async function ensureDemoWorkspace(
  databaseUrl: string,
  secret: string,
): Promise<{ email: string; password: string }> {
  const db = createDbClient({ connectionString: databaseUrl, maxConnections: 1 });
  try {
    const demo = await ensureDemoIdentity(db, secret);
    return { email: demo.email, password: demo.password };
  } finally {
    await db.$disconnect();
  }
}
