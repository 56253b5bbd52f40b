import { createHash } from "node:crypto";
import { readdir } from "node:fs/promises";
import { basename } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BerthApi } from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { callerAs, createTestApi, publicUrl } from "./support/testApi.ts";
import { seedWorkspace, workspaceRowHashes, type SeededWorkspace } from "./support/world.ts";

// Streaming file transfers (PUT /api/files/upload, GET /api/files/download): plain HTTP routes
// beside tRPC, under the same caller and membership checks, answering errors in tRPC's shape.

const suite = useApiSuite();
let world: SeededWorkspace;
let outsider: SeededWorkspace;
/** A second API on the same database and boxes, with a 1 KiB upload limit. */
let limited: BerthApi;

beforeAll(async () => {
  [world, outsider] = await Promise.all([
    seedWorkspace(suite.api, suite.db, "files"),
    seedWorkspace(suite.api, suite.db, "outsider"),
  ]);
  limited = createTestApi(suite.databaseUrl, {
    dataDir: suite.dataDir,
    env: { BERTH_MAX_UPLOAD_BYTES: "1024" },
  });
});
afterAll(async () => {
  await limited.close();
});

interface Transfer {
  readonly api?: BerthApi;
  readonly method?: "GET" | "PUT";
  readonly route?: "upload" | "download";
  readonly query: Record<string, string>;
  readonly headers?: Record<string, string>;
  readonly body?: RequestInit["body"];
}

/** One request to the file routes, in process, as serveApi and the Next.js route hand it over. */
function transfer(request: Transfer): Promise<Response> {
  const route = request.route ?? (request.method === "PUT" ? "upload" : "download");
  const url = new URL(`${publicUrl}/api/files/${route}`);
  for (const [key, value] of Object.entries(request.query)) url.searchParams.set(key, value);
  const init: RequestInit & { duplex?: "half" } = {
    method: request.method ?? "GET",
    headers: request.headers ?? { authorization: `Bearer ${world.memberToken}` },
  };
  if (request.body !== undefined) {
    init.body = request.body;
    init.duplex = "half";
  }
  return (request.api ?? suite.api).handleFiles(new Request(url, init));
}

function onBox(path: string): Record<string, string> {
  return { workspaceId: world.workspaceId, sessionId: world.boxSessionId, path };
}

async function errorOf(response: Response) {
  const { error } = (await response.json()) as {
    error: { message: string; code: string; data: { httpStatus: number; berth: { code: string } } };
  };
  return { status: response.status, code: error.code, berth: error.data.berth.code, error };
}

/** A body that arrives in pieces with no Content-Length, as a pipe or a generator sends it. */
function chunked(chunks: number, size: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent === chunks) {
        controller.close();
        return;
      }
      sent += 1;
      controller.enqueue(new Uint8Array(size).fill(sent));
    },
  });
}

async function generation(): Promise<bigint> {
  const session = await suite.db.session.findUniqueOrThrow({ where: { id: world.boxSessionId } });
  const lease = await suite.db.sandboxLease.findFirstOrThrow({
    where: { workspaceId: world.workspaceId, sandboxGroupId: session.sandboxGroupId },
  });
  return BigInt(lease.workspaceGeneration);
}

describe("file transfers", () => {
  it("upload is an admitted write of the streamed bytes; download streams them back", async () => {
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
    const uploaded = await transfer({
      method: "PUT",
      query: { ...onBox("data/blob.bin"), createParents: "1" },
      body: chunked(3, 100_000),
    });
    expect(uploaded.status).toBe(200);
    expect(await uploaded.json()).toMatchObject({ path: "data/blob.bin", size: 300_000 });
    const before = await generation();

    const again = await transfer({ method: "PUT", query: onBox("data/blob.bin"), body: bytes });
    expect(again.status).toBe(200);
    // One write, one admission: the generation moves by exactly one, and the answer says where.
    const session = await suite.db.session.findUniqueOrThrow({ where: { id: world.boxSessionId } });
    expect(await again.json()).toMatchObject({
      generation: Number(before + 1n),
      routedTo: { kind: "group", id: session.sandboxGroupId },
    });
    expect(await generation()).toBe(before + 1n);

    const downloaded = await transfer({ query: onBox("data/blob.bin") });
    expect(downloaded.status).toBe(200);
    expect(downloaded.headers.get("content-length")).toBe("300000");
    expect(downloaded.headers.get("content-disposition")).toContain("blob.bin");
    const received = new Uint8Array(await downloaded.arrayBuffer());
    expect(sha256(received)).toBe(sha256(bytes));
    // Reads advance nothing, and the call's holder is gone once the bytes are sent.
    expect(await generation()).toBe(before + 1n);
    await suite.api.settled();
    const lease = await suite.db.sandboxLease.findFirstOrThrow({
      where: { workspaceId: world.workspaceId, liveness: { in: ["warm", "draining"] } },
      include: { holders: true },
    });
    expect(lease.holders.filter((h) => h.kind === "direct")).toEqual([]);
  });

  it("refuses a file over the limit, declared or streamed, and leaves no file behind", async () => {
    const declared = await transfer({
      api: limited,
      method: "PUT",
      query: onBox("big-declared.bin"),
      body: new Uint8Array(2048),
    });
    expect(await errorOf(declared)).toMatchObject({
      status: 413,
      code: "PAYLOAD_TOO_LARGE",
      berth: "too_large",
    });

    const streamed = await transfer({
      api: limited,
      method: "PUT",
      query: onBox("big-streamed.bin"),
      body: chunked(8, 512),
    });
    const refused = await errorOf(streamed);
    expect(refused).toMatchObject({ status: 413, berth: "too_large" });
    expect(refused.error.message).toContain("BERTH_MAX_UPLOAD_BYTES");

    const member = await callerAs(suite.api, { token: world.memberToken });
    const listing = await member.fs.list({
      workspaceId: world.workspaceId,
      sessionId: world.boxSessionId,
      path: "",
    });
    const names = listing.entries.map((entry) => entry.name);
    expect(names).not.toContain("big-declared.bin");
    expect(names).not.toContain("big-streamed.bin");
    // The box's temporary file (hidden from list) went with the broken stream: read the disk.
    await expect.poll(() => tempFiles(suite.dataDir), { timeout: 5000 }).toEqual([]);
  });

  it("answers each refusal with its code in tRPC's error shape; refused callers change nothing", async () => {
    // The earlier tests' writes are settled, and their holders released, behind their answers
    // (a broken upload's call ends only once its box gave up the stream): let them land first.
    await expect
      .poll(
        async () =>
          suite.db.mutationAdmission.count({
            where: { workspaceId: world.workspaceId, outcome: null },
          }),
        { timeout: 10_000 },
      )
      .toBe(0);
    await suite.api.settled();
    const rows = await workspaceRowHashes(suite.db, world.workspaceId);
    const cases: { request: Transfer; status: number; code: string }[] = [
      {
        request: { query: { ...onBox("x"), sessionId: "not-a-uuid" } },
        status: 400,
        code: "BAD_REQUEST",
      },
      { request: { query: onBox("x"), headers: {} }, status: 401, code: "UNAUTHORIZED" },
      {
        request: { query: onBox("x"), headers: { authorization: "Bearer berth_tok_wrong" } },
        status: 401,
        code: "UNAUTHORIZED",
      },
      {
        // Another workspace's token: the workspace is not even confirmed to exist.
        request: {
          method: "PUT",
          query: onBox("planted.txt"),
          headers: { authorization: `Bearer ${outsider.memberToken}` },
          body: "planted",
        },
        status: 404,
        code: "NOT_FOUND",
      },
      {
        // A cookie is ambient: an upload from another site is refused.
        request: {
          method: "PUT",
          query: onBox("csrf.txt"),
          headers: { cookie: world.member.cookie, origin: "https://evil.example" },
          body: "csrf",
        },
        status: 403,
        code: "FORBIDDEN",
      },
      { request: { route: "upload", query: onBox("x") }, status: 404, code: "NOT_FOUND" },
    ];
    for (const { request, status, code } of cases) {
      const answered = await errorOf(await transfer(request));
      expect({ status: answered.status, code: answered.code }, JSON.stringify(request)).toEqual({
        status,
        code,
      });
      expect(answered.error.data.httpStatus).toBe(status);
    }
    expect(await workspaceRowHashes(suite.db, world.workspaceId)).toEqual(rows);

    // Refusals from the box's side (it is reached, so its lease moves) map the same way.
    expect(await errorOf(await transfer({ query: onBox("nope.txt") }))).toMatchObject({
      status: 404,
      code: "NOT_FOUND",
      berth: "not_found",
    });
    // The seeded session's box cannot be restored: an admin must act first.
    const blocked = await transfer({ query: { ...onBox("x"), sessionId: world.sessionId } });
    expect(await errorOf(blocked)).toMatchObject({
      status: 409,
      code: "CONFLICT",
      berth: "blocked",
    });
    // A path out of the workspace is the box's refusal, as for fs.write.
    const escape = await transfer({ method: "PUT", query: onBox("../escape"), body: "x" });
    expect(await errorOf(escape)).toMatchObject({
      status: 403,
      code: "FORBIDDEN",
      berth: "outside_workspace",
    });
  });
});

/** boxd's in-flight files (atomic-write temps) anywhere under the suite's boxes. */
async function tempFiles(dataDir: string): Promise<string[]> {
  const names = await readdir(dataDir, { recursive: true });
  return names.filter((name) => basename(name).startsWith(".berth-tmp-"));
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
