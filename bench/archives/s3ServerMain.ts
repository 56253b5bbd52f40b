// The S3 server of `pnpm bench archives --store s3`, in a process of its own so the bench
// process's RSS is the control plane's alone (s3rver holds request bodies and its Koa app).
// Prints one JSON line — endpoint, bucket, region, credentials — then serves until its parent
// closes its stdin (or dies, which closes it too), and removes its objects on the way out.
import { startS3Server } from "@berth/testkit";

const server = await startS3Server({ bucket: "berth-bench" });
const { endpoint, bucket, region, credentials } = server;
process.stdout.write(`${JSON.stringify({ endpoint, bucket, region, credentials })}\n`);
process.stdin.resume();
process.stdin.on("end", () => {
  void stop();
});

async function stop(): Promise<void> {
  try {
    await server[Symbol.asyncDispose]();
    process.exit(0);
  } catch (error) {
    process.stderr.write(`the bench S3 server did not stop cleanly: ${String(error)}\n`);
    process.exit(1);
  }
}
