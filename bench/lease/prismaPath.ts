// Splits the lease benchmark's gap: the same two SQL calls through raw pg, through Prisma's
// $queryRaw alone, and through Berth's LeaseSystem, 32 clients, 3 s each, twice, interleaved.
// Run: `cd bench && npx tsx lease/prismaPath.ts` (prints one line per side and round).
import { Prisma } from "@berth/db";
import { createTestDatabase } from "@berth/testkit";
import { runClosedLoop } from "../harness/load.ts";
import { RawLeaseCalls } from "./baseline.ts";
import { seedLeaseWorld } from "./world.ts";

const CLIENTS = 32;
await using database = await createTestDatabase();
const world = await seedLeaseWorld({ url: database.url, clients: CLIENTS });
const raw = new RawLeaseCalls({ url: database.url, connections: CLIENTS });
let next = 0;
const target = (client: number) => world.own[client] ?? world.shared;

const sides: Record<string, (client: number) => Promise<void>> = {
  "raw pg": async (client) => {
    const t = target(client);
    const holderId = `direct:${String((next += 1))}`;
    const { leaseId } = await raw.acquire({ ...t, holderId });
    await raw.release({ workspaceId: t.workspaceId, leaseId, holderId });
  },
  "prisma $queryRaw": async (client) => {
    const t = target(client);
    const holderId = `direct:${String((next += 1))}`;
    await world.db
      .$queryRaw(Prisma.sql`SELECT outcome, reason, lease FROM berth_lease_acquire(${t.workspaceId}::uuid,
      ${t.sessionId}::uuid, 'direct', ${holderId}, NULL::text, 90000, 600000, NULL::int, ${new Date()}::timestamptz)`);
    await world.db
      .$queryRaw(Prisma.sql`SELECT outcome, reason, lease FROM berth_lease_release(${t.workspaceId}::uuid,
      ${t.leaseId}::uuid, 'direct', ${holderId}, 900000, ${new Date()}::timestamptz)`);
  },
  "berth LeaseSystem": async (client) => {
    const t = target(client);
    const holderId = `direct:${String((next += 1))}`;
    const { lease } = await world.leases.acquire({ ...t, kind: "direct", holderId });
    await world.leases.release({
      workspaceId: t.workspaceId,
      leaseId: lease.id,
      kind: "direct",
      holderId,
    });
  },
};

for (const op of Object.values(sides))
  await runClosedLoop({ clients: CLIENTS, durationMs: 1000, op });
for (let round = 1; round <= 2; round += 1) {
  for (const [name, op] of Object.entries(sides)) {
    const result = await runClosedLoop({ clients: CLIENTS, durationMs: 3000, op });
    process.stdout.write(
      `round ${String(round)}  ${name.padEnd(18)} ${result.opsPerSecond.toFixed(0)} attach+release/s\n`,
    );
  }
}
await raw.pool.end();
await world.db.$disconnect();
