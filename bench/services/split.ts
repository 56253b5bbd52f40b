// Where one services call's time goes: the typed client over HTTP, the same procedure called in
// process (no HTTP), and context creation alone, each the p50 of 300 warm fs.read calls; then
// exec `true` over HTTP and in process.
// Run: cd bench && npx tsx services/split.ts
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { apiEnvSchema, createBerthApi, serveApi } from "@berth/api";
import { createBerthClient } from "@berth/client";
import { seedTokenOwner } from "@berth/client/testing";
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
  const { workspaceId, token } = await seedTokenOwner(db, {
    url: served.url,
    slug: "split",
    origin: "http://127.0.0.1:3000",
  });
  const session = await db.session.create({
    data: { workspaceId, sandboxGroupId: crypto.randomUUID(), backend: "local" },
  });
  const berth = createBerthClient({ url: served.url, token });
  const read = { workspaceId, sessionId: session.id, path: "file.txt" };
  await berth.fs.write.mutate({ ...read, content: "x".repeat(4096) });
  const headers = new Headers({ authorization: `Bearer ${token}` });
  for (let round = 1; round <= 2; round += 1) {
    const http = await p50(() => berth.fs.read.query(read));
    const inProcess = await p50(async () =>
      api.router.createCaller(await api.createContext({ headers })).fs.read(read),
    );
    const context = await p50(() => api.createContext({ headers }));
    const exec = { workspaceId, sessionId: session.id, argv: ["true"] };
    const execHttp = await p50(() => berth.exec.run.mutate(exec));
    const execInProcess = await p50(async () =>
      api.router.createCaller(await api.createContext({ headers })).exec.run(exec),
    );
    process.stdout.write(
      `${JSON.stringify({ round, http_p50_ms: http, in_process_p50_ms: inProcess, context_p50_ms: context, exec_http_p50_ms: execHttp, exec_in_process_p50_ms: execInProcess })}\n`,
    );
  }
} finally {
  await served.close();
  await api.close();
  await removeLocalBoxes({ dataDir, secret: SECRET });
}
