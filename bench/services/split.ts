// Where one services call's time goes: the typed client over HTTP, the same procedure called in
// process (no HTTP), and context creation alone, each the p50 of 300 warm fs.read calls.
// Run: cd bench && npx tsx services/split.ts
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiEnvSchema, createBerthApi, createPasswordUser, serveApi } from "@berth/api";
import { createBerthClient, createTokenWithPassword } from "@berth/client";
import { removeLocalBoxes } from "@berth/sandbox/testing";
import { createTestDatabase } from "@berth/testkit";
import { median } from "../harness/stats.ts";

const SECRET = "bench-services-split-0123456789abcdef01";
const CALLS = 300;

async function p50(call: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < CALLS; i += 1) {
    const started = performance.now();
    await call();
    ms.push(performance.now() - started);
  }
  return median(ms);
}

await using database = await createTestDatabase();
const dataDir = await mkdtemp(join(tmpdir(), "berth-split-"));
const api = createBerthApi(
  apiEnvSchema.parse({ DATABASE_URL: database.url, BERTH_SECRET: SECRET, BERTH_DATA_DIR: dataDir }),
);
const served = await serveApi(api);
try {
  const db = database.prisma;
  const user = await createPasswordUser(db, {
    email: "split@example.test",
    name: "Split",
    password: "split-password",
  });
  const workspace = await db.workspace.create({ data: { slug: "split", name: "Split" } });
  await db.membership.create({
    data: { workspaceId: workspace.id, userId: user.id, role: "owner" },
  });
  const session = await db.session.create({
    data: { workspaceId: workspace.id, sandboxGroupId: crypto.randomUUID(), backend: "local" },
  });
  const token = await createTokenWithPassword({
    url: served.url,
    origin: "http://127.0.0.1:3000",
    email: "split@example.test",
    password: "split-password",
    workspaceId: workspace.id,
    name: "split",
  });
  const berth = createBerthClient({ url: served.url, token });
  const read = { workspaceId: workspace.id, sessionId: session.id, path: "file.txt" };
  await berth.fs.write.mutate({ ...read, content: "x".repeat(4096) });
  const headers = new Headers({ authorization: `Bearer ${token}` });
  for (let round = 1; round <= 2; round += 1) {
    const http = await p50(() => berth.fs.read.query(read));
    const inProcess = await p50(async () =>
      api.router.createCaller(await api.createContext({ headers })).fs.read(read),
    );
    const context = await p50(() => api.createContext({ headers }));
    process.stdout.write(
      `${JSON.stringify({ round, http_p50_ms: http, in_process_p50_ms: inProcess, context_p50_ms: context })}\n`,
    );
  }
} finally {
  await served.close();
  await api.close();
  await removeLocalBoxes({ dataDir, secret: SECRET });
}
