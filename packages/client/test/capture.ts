import { join } from "node:path";
import {
  BackendRegistry,
  DatabaseClock,
  defaultLeaseConfig,
  FilesystemArchiveStore,
  LeaseSystem,
  LocalBackend,
  WorkspaceArchiver,
} from "@berth/sandbox";
export { killBox } from "@berth/sandbox/testing";
import type { ClientWorld } from "./clientSuite.ts";

/** Captures a lease's warm box into the archive store the API restores from (as the worker does). */
export async function captureFor(world: ClientWorld, leaseId: string): Promise<void> {
  const row = await world.db.sandboxLease.findUniqueOrThrow({ where: { id: leaseId } });
  const resources = {
    db: world.db,
    clock: new DatabaseClock(world.db),
    config: defaultLeaseConfig,
  };
  const lease = await new LeaseSystem(resources).readByGroup(row);
  if (lease === null) throw new Error("no lease");
  const archiver = new WorkspaceArchiver({
    resources,
    backends: BackendRegistry.of(
      new LocalBackend({ dataDir: world.dataDir, secret: world.secret, isolation: "auto" }),
    ),
    store: new FilesystemArchiveStore({ root: join(world.dataDir, "archives") }),
  });
  const result = await archiver.capture(lease, { actor: "test" });
  if (result.kind !== "published") throw new Error(`capture ${result.kind}`);
}
