// Issue 34: one backend registry. Through the real API as createBerthApi builds it from env
// (BERTH_BACKEND defaults to local): a session naming a backend this server does not configure
// is refused at sessions.create with a typed error and nothing is written; a lease naming one
// (a database shared with another installation's configuration) answers the same typed error
// at a box call, never a 500 and never a local box; a local box records this installation's id,
// the same one the database and the data folder keep.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { installationIdFile } from "@berth/sandbox";
import { TRPCClientError } from "@trpc/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveApi, type ServedApi } from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { httpClientAs } from "./support/testApi.ts";
import { seedWorkspace } from "./support/world.ts";

const suite = useApiSuite();
let http: ServedApi;
let workspaceId = "";
let token = "";

beforeAll(async () => {
  http = await serveApi(suite.api);
  const world = await seedWorkspace(suite.api, suite.db, "backends");
  workspaceId = world.workspaceId;
  token = world.memberToken;
});
afterAll(async () => {
  await http.close();
});

const berth = () => httpClientAs(http, { token });

/** The refusal as a client sees it: HTTP status, `data.berth` and the message. */
async function refusalOf(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    const data = error.data as { httpStatus: number; berth: { code: string; retryable: boolean } };
    return { status: data.httpStatus, berth: data.berth, message: error.message };
  }
  throw new Error("expected a refusal, the call was answered");
}

describe("sessions.create", () => {
  it("refuses a backend this server does not configure, writing nothing", async () => {
    const before = {
      sessions: await suite.db.session.count(),
      leases: await suite.db.sandboxLease.count(),
    };

    const refused = await refusalOf(
      berth().sessions.create.mutate({ workspaceId, title: "On a cluster", backend: "kubernetes" }),
    );

    expect(refused).toMatchObject({
      status: 412,
      berth: { code: "backend_not_configured", retryable: false },
    });
    expect(refused.message).toContain("configured: local");
    expect(refused.message).toContain("BERTH_BACKEND=kubernetes");
    expect({
      sessions: await suite.db.session.count(),
      leases: await suite.db.sandboxLease.count(),
    }).toEqual(before);
  });

  it("creates a session on a configured backend (local, the default)", async () => {
    const session = await berth().sessions.create.mutate({ workspaceId, title: "Here" });
    expect(session.backend).toBe("local");
  });
});

describe("a box call", () => {
  it("on a lease naming an unconfigured backend answers backend_not_configured, leaving it cold", async () => {
    // As a database shared with an installation that configures kubernetes would hold it.
    const session = await suite.db.session.create({
      data: {
        workspaceId,
        title: "Elsewhere",
        sandboxGroupId: crypto.randomUUID(),
        backend: "kubernetes",
      },
    });
    const on = { workspaceId, sessionId: session.id };

    const first = await refusalOf(berth().fs.list.query({ ...on, path: "" }));
    expect(first).toMatchObject({
      status: 412,
      berth: { code: "backend_not_configured", retryable: false },
    });
    const lease = await suite.db.sandboxLease.findFirstOrThrow({
      where: { sandboxGroupId: session.sandboxGroupId },
    });
    expect(lease).toMatchObject({ backend: "kubernetes", liveness: "cold", instanceId: null });

    // Not retryable is the truth: the next call is refused the same way.
    const next = await refusalOf(berth().fs.list.query({ ...on, path: "" }));
    expect(next.berth).toEqual({ code: "backend_not_configured", retryable: false });
  });

  it("on a local session gets a local box labelled with this installation's id", async () => {
    const session = await berth().sessions.create.mutate({ workspaceId, title: "Labelled" });
    const on = { workspaceId, sessionId: session.id };
    await berth().fs.write.mutate({ ...on, path: "a.txt", content: "a" });

    const lease = await suite.db.sandboxLease.findFirstOrThrow({
      where: { sandboxGroupId: session.sandboxGroupId },
    });
    const record = JSON.parse(
      await readFile(join(suite.dataDir, "boxes", lease.instanceId ?? "", "box.json"), "utf8"),
    ) as { metadata: { installationId?: string } };
    const installation = await suite.db.installation.findFirstOrThrow();
    expect(record.metadata.installationId).toBe(installation.id);
    expect((await readFile(installationIdFile(suite.dataDir), "utf8")).trim()).toBe(
      installation.id,
    );
  });
});
