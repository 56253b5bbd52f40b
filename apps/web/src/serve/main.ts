// The dashboard's web server: what `npm start` (the launcher) and `pnpm start` in apps/web run.
// The built dashboard behind Berth's HTTP edge (webServer.ts), instead of `next start`.
import { resolve } from "node:path";
import { compileTrustedProxies } from "@berth/api/clientAddress";
import { formatEnvProblems } from "@berth/validators";
import { readWebServerEnv } from "./env.ts";
import { startWebServer } from "./webServer.ts";

const parsed = readWebServerEnv();
if (!parsed.success) {
  process.stderr.write(formatEnvProblems("berth web", parsed.error));
  process.exit(1);
}
const env = parsed.data;
const server = await startWebServer({
  dir: resolve(import.meta.dirname, "..", ".."),
  host: env.HOST,
  port: env.PORT,
  trustedProxies: compileTrustedProxies(env.BERTH_TRUSTED_PROXIES),
});
process.stdout.write(`berth web: serving ${server.url}\n`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    void server.close().finally(() => process.exit(0));
  });
}
