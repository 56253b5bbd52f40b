// Run as a child process by issue-33-killed-capture.test.ts: captures one lease's box with the
// real archiver, store and progress recorder, but its box stream stalls after `stallAfterBytes`
// (the capture stays mid-write, as a slow one does). Prints "stalled" once the pending blob has
// bytes and the progress row its first figures, then waits to be killed.
import { Writable } from "node:stream";
import { createDbClient } from "@berth/db";
import { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";
import { progressRecorder } from "../archives/progressRecorder.ts";
import { WorkspaceArchiver } from "../archives/workspaceArchiver.ts";
import { LocalBackend } from "../backends/local/localBackend.ts";
import { defaultLeaseConfig } from "../lease/config.ts";
import { LeaseSystem } from "../lease/leaseSystem.ts";
import type { Backend } from "../spawner/backend.ts";
import { BackendRegistry } from "../spawner/backendRegistry.ts";
import { ManualClock } from "../testing/manualClock.ts";

const input = JSON.parse(process.argv[2] ?? "{}") as {
  url: string;
  dataDir: string;
  archiveDir: string;
  secret: string;
  now: string;
  group: { workspaceId: string; sessionId: string; sandboxGroupId: string };
  stallAfterBytes: number;
};
const db = createDbClient({ connectionString: input.url, maxConnections: 2 });
const resources = { db, clock: new ManualClock(new Date(input.now)), config: defaultLeaseConfig };
const local = new LocalBackend({ dataDir: input.dataDir, secret: input.secret, isolation: "auto" });
const recorder = progressRecorder(db);

let stalled: () => void = () => undefined;
const stall = new Promise<void>((resolve) => (stalled = resolve));

/** Passes the box's bytes on until `limit`, then takes no more: the write never completes. */
function stallingAfter(limit: number, destination: Writable): Writable {
  let passed = 0;
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      if (passed >= limit) {
        stalled();
        return;
      }
      passed += chunk.byteLength;
      if (destination.write(chunk)) callback();
      else destination.once("drain", () => callback());
    },
  });
}

// The Backend port with the real local backend inside, its capture stream held mid-way.
const backend: Backend = {
  kind: "local",
  create: (creation) => local.create(creation),
  resume: (instanceId) => local.resume(instanceId),
  terminate: (instanceId) => local.terminate(instanceId),
  suspend: (instanceId) => local.suspend(instanceId),
  inventory: () => local.inventory(),
  ready: (instanceId, options) => local.ready(instanceId, options),
  connect: async (instanceId) => {
    const client = await local.connect(instanceId);
    return {
      ...client,
      capture: (capture) =>
        client.capture({
          ...capture,
          destination: stallingAfter(input.stallAfterBytes, capture.destination),
        }),
    };
  },
};

const lease = await new LeaseSystem(resources).readByGroup(input.group);
if (lease === null) throw new Error("the probe needs a warm lease");
const archiver = new WorkspaceArchiver({
  resources,
  backends: BackendRegistry.of(backend),
  store: new FilesystemArchiveStore({ root: input.archiveDir }),
  onProgress: recorder,
});
void archiver.capture(lease, { actor: "probe" });
await stall;
await recorder.settled();
process.stdout.write("stalled\n");
// Held open by the stalled capture's connection to the box: this process waits to be killed.
setInterval(() => undefined, 60_000);
