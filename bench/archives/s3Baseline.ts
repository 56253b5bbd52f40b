import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { settleDisk, type S3Bucket } from "./world.ts";

export interface S3TarRun {
  /** `tar -czf -` piped into a lib-storage Upload, until the upload completes. */
  readonly uploadMs: number;
  /** A GetObject of it piped into `tar -xzf -`, until tar exits. */
  readonly downloadMs: number;
  readonly tgzBytes: number;
}

/**
 * The S3 store's own upload shape (S3ArchiveStore's defaults: 8 MiB parts, 2 in flight), so the
 * ratio weighs what Berth adds around the transfer, not a different tuning of it.
 */
const PART_SIZE_BYTES = 8 * 1024 * 1024;
const QUEUE_SIZE = 2;

/**
 * The S3 baseline: `tar -czf - -C tree .` streamed through lib-storage's Upload to the same
 * server as Berth's store, then a GetObject of that object streamed into `tar -xzf - -C fresh`.
 * Each timed; nothing is checked twice (Berth's restore reads its blob once more, for its sha256).
 */
export async function s3TarCycle(tree: string, scratch: string, s3: S3Bucket): Promise<S3TarRun> {
  // Kept until the run ends, as Berth's boxes are (see ArchiveWorld.lose).
  const id = crypto.randomUUID();
  const fresh = join(scratch, id, "fresh");
  await mkdir(fresh, { recursive: true });
  const key = `baseline/${id}.tgz`;

  await settleDisk();
  let started = performance.now();
  const czf = spawn("tar", ["-czf", "-", "-C", tree, "."], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const upload = new Upload({
    client: s3.client,
    params: { Bucket: s3.bucket, Key: key, Body: czf.stdout },
    partSize: PART_SIZE_BYTES,
    queueSize: QUEUE_SIZE,
  });
  await both(czf, [upload.done(), exitOf(czf, "tar -czf")]);
  const uploadMs = performance.now() - started;

  await settleDisk();
  started = performance.now();
  const object = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  const xzf = spawn("tar", ["-xzf", "-", "-C", fresh], { stdio: ["pipe", "ignore", "inherit"] });
  await both(xzf, [pipeline(object.Body as Readable, xzf.stdin), exitOf(xzf, "tar -xzf")]);
  const downloadMs = performance.now() - started;
  return { uploadMs, downloadMs, tgzBytes: object.ContentLength ?? Number.NaN };
}

/** Waits for a transfer and its tar; a failure of either kills tar, so nothing is left waiting. */
async function both(tar: ChildProcess, steps: readonly Promise<unknown>[]): Promise<void> {
  try {
    await Promise.all(steps);
  } catch (error) {
    tar.kill("SIGKILL");
    await Promise.allSettled(steps);
    throw error;
  }
}

async function exitOf(child: ChildProcess, what: string): Promise<void> {
  const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
  if (code !== 0) throw new Error(`${what} failed (${String(code ?? signal)})`);
}
