import { randomUUID } from "node:crypto";
import { AGENT_ROUTES, enrollResponseSchema } from "@berth/box-protocol";
import type { DbClient } from "@berth/db";
import type { FixtureWorld } from "../../src/fixtures.ts";
import { createPasswordUser, type BerthApi } from "../../src/index.ts";
import { callerAs, signIn } from "./testApi.ts";

export interface Person {
  readonly id: string;
  readonly email: string;
  readonly password: string;
  readonly cookie: string;
}

/** One workspace with every kind of row a procedure can point at. */
export interface SeededWorkspace extends FixtureWorld {
  readonly owner: Person;
  readonly member: Person;
  readonly spare: Person;
  /** The member's own token (role member). */
  readonly memberToken: string;
  /** The owner's token with the admin role. */
  readonly adminToken: string;
}

export async function createPerson(api: BerthApi, db: DbClient, label: string): Promise<Person> {
  const email = `${label}-${randomUUID().slice(0, 8)}@example.test`;
  const password = `pw-${randomUUID()}`;
  const { id } = await createPasswordUser(db, { email, name: label, password });
  return { id, email, password, cookie: await signIn(api, { email, password }) };
}

/**
 * Seeds a workspace through the API where one exists (tokens, invitations: so audit rows and
 * hashes are as production writes them) and through Prisma for what has no procedure yet
 * (a lease with an archive).
 */
export async function seedWorkspace(
  api: BerthApi,
  db: DbClient,
  label: string,
): Promise<SeededWorkspace> {
  const [owner, member, spare] = await Promise.all([
    createPerson(api, db, `${label}-owner`),
    createPerson(api, db, `${label}-member`),
    createPerson(api, db, `${label}-spare`),
  ]);
  const asOwner = await callerAs(api, { cookie: owner.cookie });
  const workspace = await asOwner.workspaces.create({
    slug: `${label}-${randomUUID().slice(0, 6)}`,
    name: label,
  });
  await db.membership.createMany({
    data: [
      { workspaceId: workspace.id, userId: member.id, role: "member" },
      { workspaceId: workspace.id, userId: spare.id, role: "member" },
    ],
  });
  const workspaceId = workspace.id;
  const session = await asOwner.sessions.create({ workspaceId, title: `${label} session` });
  const boxSession = await asOwner.sessions.create({ workspaceId, title: `${label} box` });
  const archiveRevision = "a".repeat(64);
  const lease = await db.sandboxLease.create({
    data: {
      workspaceId,
      sandboxGroupId: session.sandboxGroupId,
      backend: "local",
      expiresAt: new Date(),
      restoreStatus: "unrecoverable",
    },
  });
  await db.workspaceArchive.create({
    data: {
      workspaceId,
      leaseId: lease.id,
      revision: archiveRevision,
      generation: 0,
      sizeBytes: 10n,
      fileCount: 1,
      storageKey: `workspaces/${workspaceId}/x.tar.gz`,
      sha256: "b".repeat(64),
      createdAt: new Date(),
    },
  });
  const asMember = await callerAs(api, { cookie: member.cookie });
  const memberToken = await asMember.tokens.create({
    workspaceId,
    name: "member script",
    role: "member",
  });
  const adminToken = await asOwner.tokens.create({
    workspaceId,
    name: "owner script",
    role: "admin",
  });
  const machineId = await enrollMachine(api, {
    code: (await asOwner.machines.enroll({ workspaceId })).code,
    name: `${label}-machine`,
  });
  const revocable = await asOwner.invitations.create({ workspaceId, role: "member" });
  const invitation = await asOwner.invitations.create({ workspaceId, role: "member" });
  // Marked used now, so a matrix call within the next minute writes no last_used_at.
  await db.apiToken.updateMany({ where: { workspaceId }, data: { lastUsedAt: new Date() } });
  return {
    workspaceId,
    sessionId: session.id,
    boxSessionId: boxSession.id,
    archiveRevision,
    memberUserId: member.id,
    spareUserId: spare.id,
    tokenId: memberToken.id,
    invitationId: revocable.id,
    invitationToken: invitation.url.split("/invite/")[1] ?? "",
    machineId,
    owner,
    member,
    spare,
    memberToken: memberToken.token,
    adminToken: adminToken.token,
  };
}

/** Enrolls a machine as its agent would (POST /agent/v1/enroll); its id. */
export async function enrollMachine(
  api: BerthApi,
  options: { code: string; name?: string },
): Promise<string> {
  const response = await api.handleAgentEnroll(
    new Request(`http://berth.test${AGENT_ROUTES.enroll}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        code: options.code,
        ...(options.name === undefined ? {} : { name: options.name }),
        os: "linux",
        arch: "x64",
        hasDisplay: false,
        boxdVersion: "0.0.0-test",
      }),
    }),
  );
  if (response.status !== 201)
    throw new Error(`enroll answered ${String(response.status)}: ${await response.text()}`);
  return enrollResponseSchema.parse(await response.json()).machineId;
}

/** One md5 per table over its rows (those of one workspace, if given), in a stable order. */
async function digestTables(
  db: DbClient,
  tables: readonly string[],
  workspaceId?: string,
): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const name of tables) {
    const where = workspaceId === undefined ? "" : " WHERE workspace_id = $1::uuid";
    const rows = await db.$queryRawUnsafe<{ digest: string }[]>(
      `SELECT md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS digest FROM "${name}" t${where}`,
      ...(workspaceId === undefined ? [] : [workspaceId]),
    );
    hashes[name] = rows[0]?.digest ?? "";
  }
  return hashes;
}

/** A digest of every row of every table: equal digests mean nothing was written. */
export async function rowHashes(db: DbClient): Promise<Record<string, string>> {
  const tables = await db.$queryRaw<{ name: string }[]>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`;
  return digestTables(
    db,
    tables.map((t) => t.name),
  );
}

/** A digest of one workspace's rows, in every table that has a workspace_id column. */
export async function workspaceRowHashes(
  db: DbClient,
  workspaceId: string,
): Promise<Record<string, string>> {
  const tables = await db.$queryRaw<{ name: string }[]>`
    SELECT table_name AS name FROM information_schema.columns
    WHERE table_schema = 'public' AND column_name = 'workspace_id' ORDER BY table_name`;
  return digestTables(
    db,
    tables.map((t) => t.name),
    workspaceId,
  );
}
