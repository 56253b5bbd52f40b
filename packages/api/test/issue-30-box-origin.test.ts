import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveApi, type ServedApi } from "../src/index.ts";
import { createCallerFactory } from "../src/trpc.ts";
import { codeOf, useApiSuite } from "./support/apiSuite.ts";
import { publicUrl } from "./support/testApi.ts";
import { rowHashes, seedWorkspace, type SeededWorkspace } from "./support/world.ts";

// Issue 30: a GET that reaches a session's box wakes it (a lease, a process, perhaps a
// restore), so a cookie-authenticated one must come from Berth's own pages, as mutations do.
// Through the real HTTP edge (serveApi).

const suite = useApiSuite();
let world: SeededWorkspace;
let served: ServedApi;

beforeAll(async () => {
  world = await seedWorkspace(suite.api, suite.db, "origin");
  served = await serveApi(suite.api);
});
afterAll(async () => {
  await served.close();
});

/** A tRPC query as a GET, as the dashboard's batch link (or an <img src>) sends it. */
function query(path: string, input: unknown, headers: Record<string, string>): Promise<Response> {
  const encoded = encodeURIComponent(JSON.stringify({ json: input }));
  return fetch(`${served.url}/api/trpc/${path}?input=${encoded}`, { headers });
}

function download(path: string, headers: Record<string, string>): Promise<Response> {
  const url = new URL(`${served.url}/api/files/download`);
  url.searchParams.set("workspaceId", world.workspaceId);
  url.searchParams.set("sessionId", world.boxSessionId);
  url.searchParams.set("path", path);
  return fetch(url, { headers });
}

const scope = () => ({ workspaceId: world.workspaceId, sessionId: world.boxSessionId });

/** The code and message of a refusal, from a tRPC or a file route answer. */
async function refusalOf(response: Response): Promise<{ code: string; message: string }> {
  const body = (await response.json()) as {
    error: { json?: { message: string; data: { code: string } }; message?: string; code?: string };
  };
  const { json } = body.error;
  if (json !== undefined) return { code: json.data.code, message: json.message };
  return { code: body.error.code ?? "", message: body.error.message ?? "" };
}

/** Local boxes the suite's backend started (none until a box is woken). */
async function boxFolders(): Promise<string[]> {
  return readdir(join(suite.dataDir, "boxes")).catch(() => []);
}

describe("a cookie-authenticated GET that reaches a box", () => {
  it("is refused with FORBIDDEN from another site (or without a browser's word), changing nothing", async () => {
    const cookie = world.owner.cookie;
    const before = await rowHashes(suite.db);
    const foreign: Record<string, string>[] = [
      { cookie, "sec-fetch-site": "cross-site" },
      { cookie, "sec-fetch-site": "cross-site", origin: "https://evil.example" },
      // A sibling subdomain is another site's page too.
      { cookie, "sec-fetch-site": "same-site" },
      // Neither header: not a page of Berth's as far as anyone can tell.
      { cookie },
    ];
    for (const headers of foreign) {
      for (const response of [
        await query("fs.list", { ...scope(), path: "" }, headers),
        await query("git.status", scope(), headers),
        await download("notes.txt", headers),
      ]) {
        expect(response.status, JSON.stringify(headers)).toBe(403);
        const refusal = await refusalOf(response);
        expect(refusal.code).toBe("FORBIDDEN");
        expect(refusal.message).toMatch(/Berth's own pages.*API token/);
      }
    }
    // No lease row, no holder, no box process: nothing was woken.
    expect(await rowHashes(suite.db)).toEqual(before);
    expect(await boxFolders()).toEqual([]);
  });

  it("is answered from Berth's own pages (Sec-Fetch-Site or a trusted Origin), and by token with neither", async () => {
    const cookie = world.owner.cookie;
    const write = await fetch(`${served.url}/api/trpc/fs.write`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${world.adminToken}` },
      body: JSON.stringify({ json: { ...scope(), path: "notes.txt", content: "hello" } }),
    });
    expect(write.status).toBe(200);
    const own: Record<string, string>[] = [
      { cookie, "sec-fetch-site": "same-origin" },
      { cookie, origin: publicUrl },
      // Another loopback name of the one-machine default: its Origin is Berth's.
      { cookie, origin: "http://localhost:3000", "sec-fetch-site": "cross-site" },
      { authorization: `Bearer ${world.memberToken}` },
    ];
    for (const headers of own) {
      const listed = await query("fs.list", { ...scope(), path: "" }, headers);
      expect(listed.status, JSON.stringify(headers)).toBe(200);
      expect(await listed.text()).toContain("notes.txt");
      const file = await download("notes.txt", headers);
      expect(file.status).toBe(200);
      expect(await file.text()).toBe("hello");
    }
  });

  it("is answered when Berth's own server makes it while rendering a page (the RSC caller)", async () => {
    const headers = new Headers({ cookie: world.owner.cookie });
    const rendering = createCallerFactory(suite.api.router)(
      await suite.api.createContext({ headers, ownRender: true }),
    );
    expect(await codeOf(rendering.fs.list({ ...scope(), path: "" }))).toBe("answered");
    // The same headers from a request are not Berth's own.
    const requested = createCallerFactory(suite.api.router)(
      await suite.api.createContext({ headers }),
    );
    expect(await codeOf(requested.fs.list({ ...scope(), path: "" }))).toBe("FORBIDDEN");
  });
});
