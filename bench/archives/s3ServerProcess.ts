import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { z } from "zod";

const announcement = z.object({
  endpoint: z.url(),
  bucket: z.string().min(1),
  region: z.string().min(1),
  credentials: z.object({ accessKeyId: z.string(), secretAccessKey: z.string() }),
});

/** Where the child's S3 server listens and how to sign for it. */
export type S3Endpoint = z.infer<typeof announcement>;

/** How long a stopping server may take to remove its objects before it is killed. */
const STOP_GRACE_MS = 60_000;

/**
 * A local S3 server (testkit's s3rver) in a child process (s3ServerMain.ts): its memory and CPU
 * are not the bench process's, as a real object store's would not be the control plane's.
 */
export class S3ServerProcess implements AsyncDisposable {
  private constructor(
    readonly endpoint: S3Endpoint,
    readonly child: ChildProcess,
  ) {}

  static async start(): Promise<S3ServerProcess> {
    const child = spawn(
      process.execPath,
      ["--import", import.meta.resolve("tsx"), `${import.meta.dirname}/s3ServerMain.ts`],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    const exited = once(child, "exit").then(([code]) => {
      throw new Error(`the S3 server exited (${String(code)}) before announcing itself`);
    });
    const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    try {
      const [line] = (await Promise.race([once(lines, "line"), exited])) as [string];
      return new S3ServerProcess(announcement.parse(JSON.parse(line)), child);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    } finally {
      lines.close();
      exited.catch(() => undefined);
    }
  }

  /** Closes its stdin (it then removes its objects and exits); SIGKILL if it has not in time. */
  async [Symbol.asyncDispose](): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = once(this.child, "exit");
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), STOP_GRACE_MS);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  }
}
