// Profiles Berth's side of the lease benchmark alone: `pnpm --filter @berth/bench exec node
// --cpu-prof --cpu-prof-dir=results/profile --import tsx lease/profile.ts`, then
// `tsx lease/summarizeProfile.ts results/profile` prints where the time goes.
import { createTestDatabase } from "@berth/testkit";
import { runClosedLoop } from "../harness/load.ts";
import { seedLeaseWorld } from "./world.ts";

const CLIENTS = 32;
await using database = await createTestDatabase();
const world = await seedLeaseWorld({ url: database.url, clients: CLIENTS });
let next = 0;
const result = await runClosedLoop({
  clients: CLIENTS,
  durationMs: 6000,
  op: async (client) => {
    const target = world.own[client] ?? world.shared;
    const holderId = `direct:${String(client)}-${String((next += 1))}`;
    const { lease } = await world.leases.acquire({ ...target, kind: "direct", holderId });
    await world.leases.release({
      workspaceId: target.workspaceId,
      leaseId: lease.id,
      kind: "direct",
      holderId,
    });
  },
});
process.stdout.write(
  `berth alone: ${result.opsPerSecond.toFixed(0)} attach+release/s, p50 ${result.p50Ms.toFixed(1)} ms\n`,
);
await world.db.$disconnect();
