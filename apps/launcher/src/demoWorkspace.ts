import { ensureDemoIdentity } from "@berth/api";
import { createDbClient } from "@berth/db";

/** The demo workspace and its admin a first start opens on; created once, left alone afterwards. */
export async function ensureDemoWorkspace(options: {
  databaseUrl: string;
  secret: string;
  password: string | undefined;
}): Promise<{ email: string; password: string }> {
  const db = createDbClient({ connectionString: options.databaseUrl, maxConnections: 1 });
  try {
    const demo = await ensureDemoIdentity(db, {
      berthSecret: options.secret,
      password: options.password,
    });
    return { email: demo.email, password: demo.password };
  } finally {
    await db.$disconnect();
  }
}
