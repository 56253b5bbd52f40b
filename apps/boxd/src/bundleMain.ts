// The bundle's entry (dist/main.mjs, see scripts/bundle.mjs). boxd itself is dist/daemon.cjs,
// compiled here with the V8 code cache the build made for it (daemon.cjs.cache): a box starts
// without parsing and compiling ~1.2 MB of JavaScript first (measured: ~85 ms to listening
// against ~115 ms from the plain ES module, of which ~45 ms is Node's own start).
//
// The cache is only ever written by the build, never by a box: code a box could write would run
// in every box started after it. V8 refuses a cache made for other source, another Node or other
// flags (node-flags.json are the ones it is made and run with); boxd then compiles as usual.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

const daemonPath = fileURLToPath(new URL("./daemon.cjs", import.meta.url));
const cachePath = `${daemonPath}.cache`;

type CacheStatus = "accepted" | "rejected" | "missing";

function readCache(): Buffer | undefined {
  try {
    return readFileSync(cachePath);
  } catch {
    return undefined;
  }
}

const cachedData = readCache();
// CommonJS's own wrapper, so the script sees the five names a CommonJS module does.
const wrapped = `(function (exports, require, module, __filename, __dirname) {${readFileSync(daemonPath, "utf8")}\n})`;
const script = new Script(wrapped, {
  filename: daemonPath,
  cachedData,
});
const daemon: { exports: { runDaemon?: () => Promise<void> } } = { exports: {} };
(script.runInThisContext() as (...args: unknown[]) => void)(
  daemon.exports,
  createRequire(daemonPath),
  daemon,
  daemonPath,
  dirname(daemonPath),
);
const status: CacheStatus =
  cachedData === undefined
    ? "missing"
    : script.cachedDataRejected === true
      ? "rejected"
      : "accepted";

const mode = process.argv[2];
if (mode === "--write-code-cache") {
  // Made after loading: the cache then holds every function that loading compiled, not only
  // the top level.
  const temporary = `${cachePath}.${String(process.pid)}.tmp`;
  writeFileSync(temporary, script.createCachedData());
  renameSync(temporary, cachePath);
} else if (mode === "--code-cache-status") {
  process.stdout.write(`${status}\n`);
} else {
  const { runDaemon } = daemon.exports;
  if (runDaemon === undefined) throw new Error(`${daemonPath} exports no runDaemon: rebuild boxd`);
  await runDaemon();
}
