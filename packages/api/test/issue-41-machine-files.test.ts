// Issue 41: the file streams on an enrolled machine. Its agent channel carries JSON, not
// streams, so the upload and download routes reach a real agent process in chunks; a file of
// several chunks goes up and comes back byte for byte, landing in the agent's own folder.
import { createHash, randomBytes } from "node:crypto";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { useApiSuite } from "./support/apiSuite.ts";
import { useEnrolledAgent } from "./support/enrolledAgent.ts";
import type { RealAgent } from "./support/realAgent.ts";
import { callerAs, publicUrl } from "./support/testApi.ts";
import type { SeededWorkspace } from "./support/world.ts";

const suite = useApiSuite();
const enrolled = useEnrolledAgent(suite, "machine-files");
let a: SeededWorkspace;
let agent: RealAgent;
let machineId = "";
const MiB = 1024 * 1024;
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

beforeAll(async () => {
  ({ workspace: a, agent, machineId } = enrolled.current);
  const admin = await callerAs(suite.api, { token: a.adminToken });
  await admin.admin.swap({
    workspaceId: a.workspaceId,
    sessionId: a.boxSessionId,
    target: machineId,
    expectedEpoch: 0,
  });
});

/** One request to the file routes, in process, as a member of the workspace sends it. */
function transfer(
  route: "upload" | "download",
  query: Record<string, string>,
  body?: ReadableStream<Uint8Array>,
): Promise<Response> {
  const url = new URL(`${publicUrl}/api/files/${route}`);
  const scope = { workspaceId: a.workspaceId, sessionId: a.boxSessionId };
  for (const [key, value] of Object.entries({ ...scope, ...query }))
    url.searchParams.set(key, value);
  const init: RequestInit & { duplex?: "half" } = {
    method: route === "upload" ? "PUT" : "GET",
    headers: { authorization: `Bearer ${a.memberToken}` },
  };
  if (body !== undefined) {
    init.body = body;
    init.duplex = "half";
  }
  return suite.api.handleFiles(new Request(url, init));
}

/**
 * `bytes` in uneven pieces, as a client's body arrives (never the transfer's chunk size);
 * `afterFirst` runs when the second piece is asked for.
 */
function arriving(bytes: Uint8Array, afterFirst?: () => Promise<void>): ReadableStream<Uint8Array> {
  const piece = 300_000;
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      if (sent === piece) await afterFirst?.();
      if (sent >= bytes.byteLength) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(sent, sent + piece));
      sent += piece;
    },
  });
}

async function tempFilesIn(folder: string): Promise<string[]> {
  return (await readdir(folder, { recursive: true })).filter((name) =>
    name.split("/").some((part) => part.startsWith(".berth-tmp-")),
  );
}

describe("files on an enrolled machine", () => {
  it("an upload of several chunks lands in the machine's folder, and downloads back byte for byte", async () => {
    const bytes = randomBytes(3 * MiB + 12_345);
    const uploaded = await transfer(
      "upload",
      { path: "data/blob.bin", createParents: "1" },
      arriving(bytes),
    );
    expect(uploaded.status).toBe(200);
    expect(await uploaded.json()).toEqual({
      path: "data/blob.bin",
      version: sha256(bytes),
      size: bytes.byteLength,
      routedTo: { kind: "machine", id: machineId },
      generation: null,
    });
    expect(sha256(await readFile(join(agent.root, "data/blob.bin")))).toBe(sha256(bytes));
    expect(await tempFilesIn(agent.root)).toEqual([]);

    const downloaded = await transfer("download", { path: "data/blob.bin" });
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get("content-length")).toBe(String(bytes.byteLength));
    const received = new Uint8Array(await downloaded.arrayBuffer());
    expect(received.byteLength).toBe(bytes.byteLength);
    expect(sha256(received)).toBe(sha256(bytes));
  }, 60_000);

  it("an upload whose file changed on the machine meanwhile is CONFLICT at commit, leaving the other write and no temp file", async () => {
    await writeFile(join(agent.root, "notes.txt"), "first");
    const bytes = randomBytes(2 * MiB);
    const refused = await transfer(
      "upload",
      { path: "notes.txt", expectedVersion: sha256(Buffer.from("first")) },
      // Written on the machine once the upload has begun (its precondition held then).
      arriving(bytes, () => writeFile(join(agent.root, "notes.txt"), "theirs")),
    );
    expect(refused.status).toBe(409);
    const { error } = (await refused.json()) as { error: { data: { berth: { code: string } } } };
    expect(error.data.berth.code).toBe("version_conflict");
    expect(await readFile(join(agent.root, "notes.txt"), "utf8")).toBe("theirs");
    expect(await tempFilesIn(agent.root)).toEqual([]);
  }, 60_000);

  it("a download fails, rather than answer a torn file, when the file is rewritten under it (same size)", async () => {
    const original = randomBytes(3 * MiB);
    await writeFile(join(agent.root, "moving.bin"), original);
    const downloaded = await transfer("download", { path: "moving.bin" });
    expect(downloaded.status).toBe(200);
    const reader = (downloaded.body as ReadableStream<Uint8Array>).getReader();
    // Each chunk is read from the machine only when asked for: the rest is read after this.
    const first = await reader.read();
    expect(first.value?.byteLength).toBe(MiB);
    await writeFile(join(agent.root, "moving.bin"), randomBytes(3 * MiB));
    const rest = (async () => {
      for (;;) if ((await reader.read()).done) return "complete";
    })();
    await expect(rest).rejects.toThrow(/changed on the machine during the download/);
  }, 60_000);
});
