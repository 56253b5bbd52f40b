import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";

const repoRoot = join(import.meta.dirname, "..", "..");

export interface RunningStack {
  readonly url: string;
  stop(): Promise<void>;
}

/** A port nothing listens on now (the launcher needs a number before it starts). */
async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  server.close();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/**
 * Berth as the README's start command runs it (dashboard, API and worker, from the built
 * dashboard), on the given database, without a demo box: the benchmark measures pages, not boxes.
 */
export async function startStack(options: {
  databaseUrl: string;
  dataDir: string;
  demoPassword: string;
}): Promise<RunningStack> {
  if (!existsSync(join(repoRoot, "apps", "web", ".next", "BUILD_ID")))
    throw new Error("The dashboard is not built: run `pnpm turbo run build` first.");
  const port = await freePort();
  const url = `http://127.0.0.1:${String(port)}`;
  const launcher = spawn(
    process.execPath,
    ["--import", "tsx", join(repoRoot, "apps", "launcher", "src", "main.ts")],
    {
      env: {
        ...process.env,
        DATABASE_URL: options.databaseUrl,
        BERTH_DATA_DIR: options.dataDir,
        BERTH_DEMO_BOX: "off",
        BERTH_DEMO_PASSWORD: options.demoPassword,
        PORT: String(port),
        LOG_LEVEL: "warn",
      },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  launcher.stderr.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const exited = once(launcher, "exit");
  const stop = async () => {
    if (launcher.exitCode !== null || launcher.signalCode !== null) return;
    launcher.kill("SIGTERM");
    await exited;
  };
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (launcher.exitCode !== null)
      throw new Error(`Berth exited with ${String(launcher.exitCode)} while starting:\n${stderr}`);
    const ready = await fetch(`${url}/api/trpc/status.get`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return { url, stop };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await stop();
  throw new Error(`Berth did not answer on ${url} within 120 s:\n${stderr}`);
}
