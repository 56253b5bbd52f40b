import type { DbClient } from "@berth/db";
import { deriveSecret } from "../auth/secrets.ts";
import { createPasswordUser } from "./passwordAccount.ts";

/**
 * The demo admin's sign-in. Unless chosen, the password derives from BERTH_SECRET, so it is
 * stable across restarts, printed at every start, and stored nowhere but as its hash.
 */
export function demoAdminCredentials(options: {
  berthSecret: string;
  password?: string | undefined;
}): {
  email: string;
  password: string;
} {
  return {
    email: "admin@berth.local",
    password:
      options.password ?? deriveSecret(options.berthSecret, "demo-admin-password").slice(0, 20),
  };
}

/**
 * The demo workspace and its owner, created once and left alone afterwards (a changed password
 * or role is kept). Never called in production mode.
 */
export async function ensureDemoIdentity(
  db: DbClient,
  options: { berthSecret: string; password?: string | undefined },
): Promise<{ workspaceId: string; email: string; password: string }> {
  const credentials = demoAdminCredentials(options);
  const workspace = await db.workspace.upsert({
    where: { slug: "demo" },
    create: { slug: "demo", name: "Demo workspace" },
    update: {},
    select: { id: true },
  });
  await db.$transaction(async (tx) => {
    const existing = await tx.user.findUnique({
      where: { email: credentials.email },
      select: { id: true },
    });
    const user = existing ?? (await createPasswordUser(tx, { ...credentials, name: "Demo admin" }));
    await tx.membership.upsert({
      where: { workspaceId_userId: { workspaceId: workspace.id, userId: user.id } },
      create: { workspaceId: workspace.id, userId: user.id, role: "owner" },
      update: {},
    });
  });
  return { workspaceId: workspace.id, ...credentials };
}
