// Issue 37: BERTH_BACKEND is the default backend of new sessions, and both backends can be
// configured at once. The real API as createBerthApi builds it from env with BERTH_BACKEND=
// kubernetes (a kubeconfig file naming a cluster it never contacts: creating a session writes
// one row and reaches no box): a session created without a backend names kubernetes, one that
// names local gets local (still configured beside it). Real Postgres.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveApi, type ServedApi } from "../src/index.ts";
import { useApiSuite } from "./support/apiSuite.ts";
import { httpClientAs } from "./support/testApi.ts";
import { seedWorkspace } from "./support/world.ts";

/** A kubeconfig whose server nothing here listens on: loading it contacts nothing. */
const KUBECONFIG_TEXT = `apiVersion: v1
kind: Config
clusters:
  - name: remote
    cluster: { server: "https://127.0.0.1:9" }
users:
  - name: berth
    user: { token: "not-a-real-token" }
contexts:
  - name: remote
    context: { cluster: remote, user: berth, namespace: berth }
current-context: remote
`;

let kubeDir = "";
beforeAll(async () => {
  kubeDir = await mkdtemp(join(tmpdir(), "berth-kubeconfig-"));
  await writeFile(join(kubeDir, "config"), KUBECONFIG_TEXT);
});
afterAll(async () => {
  await rm(kubeDir, { recursive: true, force: true });
});

// Registered after the hook that writes the kubeconfig: the API is built once it exists.
const suite = useApiSuite({
  env: () => ({
    BERTH_BACKEND: "kubernetes",
    KUBECONFIG: join(kubeDir, "config"),
    BERTH_KUBE_TEMPLATE: "berth-box",
  }),
});
let http: ServedApi;
let workspaceId = "";
let token = "";

beforeAll(async () => {
  http = await serveApi(suite.api);
  const world = await seedWorkspace(suite.api, suite.db, "default-backend");
  workspaceId = world.workspaceId;
  token = world.memberToken;
});
afterAll(async () => {
  await http.close();
});

const berth = () => httpClientAs(http, { token });

describe("sessions.create under BERTH_BACKEND=kubernetes", () => {
  it("names kubernetes when the creator names no backend", async () => {
    const session = await berth().sessions.create.mutate({ workspaceId, title: "Default" });
    expect(session.backend).toBe("kubernetes");
    const row = await suite.db.session.findUniqueOrThrow({ where: { id: session.id } });
    expect(row.backend).toBe("kubernetes");
  });

  it("still creates a local session when asked: both backends are configured", async () => {
    const session = await berth().sessions.create.mutate({
      workspaceId,
      title: "Here",
      backend: "local",
    });
    expect(session.backend).toBe("local");
  });
});
