// Run as a child process by the archive store's tests: begins a tagged pending blob, writes
// `bytes` bytes into it, prints "writing", and then waits — to be killed, or told on stdin to
// commit under a key (it prints "committed").
import { createInterface } from "node:readline";
import { FilesystemArchiveStore } from "../archives/filesystemArchiveStore.ts";

const input = JSON.parse(process.argv[2] ?? "{}") as {
  root: string;
  tag: { leaseId: string; transferId: string };
  bytes: number;
};
const pending = await new FilesystemArchiveStore({ root: input.root }).begin(input.tag);
await new Promise<void>((resolve, reject) => {
  pending.sink.write(Buffer.alloc(input.bytes, 7), (error) => {
    if (error) reject(error);
    else resolve();
  });
});
process.stdout.write("writing\n");
for await (const line of createInterface({ input: process.stdin })) {
  pending.sink.end();
  await pending.commit(line.trim());
  process.stdout.write("committed\n");
  break;
}
