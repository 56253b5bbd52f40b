// The dashboard's web server: what `npm start` (the launcher) and `pnpm start` in apps/web run.
// The built dashboard behind Berth's HTTP edge (webServer.ts), instead of `next start`.
import { resolve } from "node:path";
import { compileTrustedProxies } from "@berth/api/clientAddress";
import { classifyListenError, ListenFailedError, watchLauncher } from "@berth/launch-protocol";
import { formatEnvProblems } from "@berth/validators";
import { readWebServerEnv } from "./env.ts";
import { startWebServer, type WebServer } from "./webServer.ts";

const parsed = readWebServerEnv();
if (!parsed.success) {
  process.stderr.write(formatEnvProblems("berth web", parsed.error));
  process.exit(1);
}
const env = parsed.data;

let server: WebServer | undefined;
let stopping = false;
/** Closes the server and exits; a second request (Ctrl-C reaches us twice) changes nothing. */
function stop(reason: string): void {
  if (stopping) return;
  stopping = true;
  process.stdout.write(`berth web: stopping (${reason})\n`);
  void (server?.close() ?? Promise.resolve()).finally(() => process.exit(0));
}
// Before the server starts (Next takes seconds to prepare): a stop then exits at once.
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => stop(signal));
// A SIGKILLed launcher stops nothing itself; without this the dashboard would serve on with no
// worker (no reaper, no checkpoints, no orphan sweep) and hold the port against the next start.
if (env.BERTH_LAUNCHER_PID !== undefined)
  watchLauncher({ pid: env.BERTH_LAUNCHER_PID, onGone: () => stop("launcher gone") });

try {
  server = await startWebServer({
    dir: resolve(import.meta.dirname, "..", ".."),
    host: env.HOST,
    port: env.PORT,
    trustedProxies: compileTrustedProxies(env.BERTH_TRUSTED_PROXIES),
    launchNonce: env.BERTH_LAUNCH_NONCE,
  });
} catch (error) {
  const failure = classifyListenError(error);
  if (failure === undefined) throw error;
  const problem = new ListenFailedError({ failure, host: env.HOST, port: env.PORT, cause: error });
  process.stderr.write(`berth web: ${problem.message}\n`);
  process.exit(1);
}
process.stdout.write(`berth web: serving ${server.url}\n`);
