import { createPasswordUser } from "@berth/api";
import type { DbClient } from "@berth/db";
import { createTokenWithPassword } from "../tokenWithPassword.ts";

export interface TokenOwner {
  readonly workspaceId: string;
  readonly email: string;
  readonly password: string;
  /** Made through the served API's sign-in, as a script or `berth login` gets one. */
  readonly token: string;
}

/**
 * A person who owns a new workspace, and an API token of theirs made over HTTP against the
 * served API at `url`: what client, CLI and bench suites start from. For tests only.
 */
export async function seedTokenOwner(
  db: DbClient,
  options: {
    readonly url: string;
    readonly slug: string;
    readonly role?: "owner" | "admin" | "member";
    /** Berth's origin as sign-in sees it, when it differs from `url`. */
    readonly origin?: string;
  },
): Promise<TokenOwner> {
  const email = `owner@${options.slug}.example.test`;
  const password = `${options.slug}-owner-password`;
  const owner = await createPasswordUser(db, { email, name: "Owner", password });
  const workspace = await db.workspace.create({
    data: { slug: options.slug, name: options.slug },
  });
  await db.membership.create({
    data: { workspaceId: workspace.id, userId: owner.id, role: "owner" },
  });
  const token = await createTokenWithPassword({
    url: options.url,
    email,
    password,
    workspaceId: workspace.id,
    name: `${options.slug} tests`,
    ...(options.role === undefined ? {} : { role: options.role }),
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  });
  return { workspaceId: workspace.id, email, password, token };
}
