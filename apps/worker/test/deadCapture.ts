// Run as a child process by issue-33-abandoned-capture.test.ts: plays a capture in a web or
// worker process — a tagged pending blob with bytes in it, and its 'capturing' progress — then
// prints "writing" and waits to be killed.
import { createDbClient } from "@berth/db";
import { FilesystemArchiveStore, progressRecorder } from "@berth/sandbox";

const input = JSON.parse(process.argv[2] ?? "{}") as {
  url: string;
  archiveDir: string;
  leaseId: string;
};
const db = createDbClient({ connectionString: input.url, maxConnections: 1 });
const recorder = progressRecorder(db);
const transferId = crypto.randomUUID();
const pending = await new FilesystemArchiveStore({ root: input.archiveDir }).begin({
  leaseId: input.leaseId,
  transferId,
});
await new Promise<void>((resolve, reject) => {
  pending.sink.write(Buffer.alloc(45 * 1024, 1), (error) => {
    if (error) reject(error);
    else resolve();
  });
});
recorder({
  operation: "capture",
  leaseId: input.leaseId,
  transferId,
  phase: "capturing",
  bytesDone: 45 * 1024,
  bytesTotal: 150 * 1024,
});
await recorder.settled();
process.stdout.write("writing\n");
setInterval(() => undefined, 60_000);
