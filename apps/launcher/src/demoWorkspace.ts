import { createDbClient } from "@berth/db";

/** The workspace a first start opens on; created once, left alone afterwards. */
export async function ensureDemoWorkspace(databaseUrl: string): Promise<void> {
  const db = createDbClient({ connectionString: databaseUrl, maxConnections: 1 });
  try {
    await db.workspace.upsert({
      where: { slug: "demo" },
      create: { slug: "demo", name: "Demo workspace" },
      update: {},
    });
  } finally {
    await db.$disconnect();
  }
}
