/**
 * File streams on an enrolled machine (issue 41): its agent channel carries JSON messages, not
 * streams, so a download is a run of ranged reads and an upload is uploadBegin, uploadChunk…,
 * uploadCommit. Both pull: one chunk in flight at a time, so a slow reader or sender holds no
 * more than one chunk here, and a 2 GiB file is never held whole.
 */
import {
  BoxError,
  type BodySource,
  type Download,
  type FileInfo,
  type ReadResponse,
  type UploadInput,
  type WriteResponse,
} from "@berth/box-protocol";
import type { MachineBoxClient } from "../machines/machineBoxClient.ts";

/**
 * Bytes per channel message. Each goes as base64 inside a JSON message (a third larger: about
 * 1.4 MB), which the channel, the relay between replicas and the agent each hold whole while
 * they pass it on: small enough that this is cheap and no message holds the channel for long,
 * large enough that a 2 GiB upload is 2048 round trips, not far more.
 */
export const MACHINE_CHUNK_BYTES = 1024 * 1024;

/**
 * The file's size, from a first read, and its bytes as they are pulled. A body whose bytes stop
 * adding up to that size (the file grew, shrank or was replaced meanwhile) fails rather than
 * hand back a torn file.
 */
export async function machineDownload(client: MachineBoxClient, path: string): Promise<Download> {
  // Taken before the first read: a rewrite after it, even one keeping the size, moves the mtime.
  const before = (await client.stat({ path })).entry;
  const first = await readChunk(client, path, 0);
  return { size: first.size, body: chunksFrom(client, { path, first, before }) };
}

async function* chunksFrom(
  client: MachineBoxClient,
  from: { readonly path: string; readonly first: ReadResponse; readonly before: FileInfo },
): AsyncGenerator<Uint8Array> {
  const { path, first, before } = from;
  const { size } = first;
  let reply = first;
  let done = 0;
  for (;;) {
    const bytes = Buffer.from(reply.content, "base64");
    done += bytes.byteLength;
    const addsUp = reply.eof ? done === size : bytes.byteLength > 0 && done < size;
    if (reply.size !== size || !addsUp) throw changedDuring(path);
    if (reply.eof) {
      // One read is one view of the file; across several, the last bytes wait for the check.
      if (reply !== first) await checkUnchanged(client, { path, before, size });
      if (bytes.byteLength > 0) yield bytes;
      return;
    }
    yield bytes;
    reply = await readChunk(client, path, done);
  }
}

/**
 * The file is still the one stat saw before the first read. Only a regular file's mtime is
 * compared: stat describes a symlink itself, not the file it leads to, so a download through a
 * link is checked by its size alone.
 */
async function checkUnchanged(
  client: MachineBoxClient,
  file: { readonly path: string; readonly before: FileInfo; readonly size: number },
): Promise<void> {
  const { path, before, size } = file;
  if (before.type !== "file") return;
  const after = (await client.stat({ path })).entry;
  if (after.type !== "file" || after.size !== size || after.mtimeMs !== before.mtimeMs)
    throw changedDuring(path);
}

function readChunk(client: MachineBoxClient, path: string, offset: number) {
  return client.read({ path, offset, length: MACHINE_CHUNK_BYTES, encoding: "base64" });
}

function changedDuring(path: string): BoxError {
  return new BoxError(
    "version_conflict",
    `${path} changed on the machine during the download: download it again`,
  );
}

/**
 * The body sent in chunks of MACHINE_CHUNK_BYTES into one upload, committed at its end; on any
 * failure the upload is aborted (best effort: an upload left behind is removed by the agent
 * once idle) and the failure is what is thrown.
 */
export async function machineUpload(
  client: MachineBoxClient,
  input: UploadInput,
): Promise<WriteResponse> {
  const { body, ...options } = input;
  const { uploadId } = await client.uploadBegin(options);
  try {
    let offset = 0;
    for await (const chunk of inChunks(body, MACHINE_CHUNK_BYTES)) {
      const content = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      await client.uploadChunk({ uploadId, offset, content: content.toString("base64") });
      offset += chunk.byteLength;
    }
    return await client.uploadCommit({ uploadId });
  } catch (error) {
    await client.uploadAbort({ uploadId }).catch(() => undefined);
    throw error;
  }
}

/** The body's bytes cut into pieces of exactly `size` (the last one shorter), as they arrive. */
async function* inChunks(body: BodySource, size: number): AsyncGenerator<Uint8Array> {
  const source = typeof body === "string" ? [Buffer.from(body)] : isBytes(body) ? [body] : body;
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  for await (const piece of source) {
    let rest = piece;
    while (heldBytes + rest.byteLength >= size) {
      const take = size - heldBytes;
      yield Buffer.concat([...held, rest.subarray(0, take)]);
      held = [];
      heldBytes = 0;
      rest = rest.subarray(take);
    }
    if (rest.byteLength > 0) {
      held.push(rest);
      heldBytes += rest.byteLength;
    }
  }
  if (heldBytes > 0) yield Buffer.concat(held);
}

function isBytes(body: BodySource): body is Uint8Array {
  return body instanceof Uint8Array;
}
