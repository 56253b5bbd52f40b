// Bundles boxd, so a box starts without tsx transpiling its sources (about 0.3 s to listening
// instead of about 0.9 s), then compiles it once to make V8's code cache for it (see
// src/bundleMain.ts). dist/ holds:
// - main.mjs, the entry: loads daemon.cjs through the code cache and runs it;
// - daemon.cjs, boxd itself, one CommonJS script (V8 caches scripts, not ES modules, in Node 20);
// - daemon.cjs.cache, made by running main.mjs --write-code-cache under node-flags.json;
// - fsThread.mjs, the module of boxd's worker threads (manifests, extraction), which
//   daemon.cjs loads from its own folder.
// - boxd.mjs, the single-file boxd a user's machine runs as `node boxd.mjs agent …` (Berth
//   serves it): ES module with everything inside, the worker thread's module included (started
//   from a data: URL), and node-pty replaced by a stub, so it needs nothing beside it but Node
//   20. An agent's terminals run on util-linux `script` (src/agent/agentTerminals.ts), never
//   on node-pty: only boxd in a box (server/boxd.ts) spawns through it.
// node-pty stays outside (native). `node scripts/bundle.mjs <folder>` writes there instead.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { build } from "esbuild";

const dist = process.argv[2] ?? new URL("../dist", import.meta.url).pathname;
const source = (path) => new URL(`../src/${path}`, import.meta.url).pathname;
const common = {
  outdir: dist,
  bundle: true,
  platform: "node",
  target: "node20",
  external: ["node-pty"],
  logLevel: "warning",
};

await build({
  ...common,
  entryPoints: { daemon: source("daemon.ts") },
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  // A CommonJS script has no import.meta: its URL is its own file's.
  define: { "import.meta.url": "__boxdScriptUrl" },
  banner: { js: 'var __boxdScriptUrl = require("node:url").pathToFileURL(__filename).href;' },
});

await build({
  ...common,
  entryPoints: { main: source("bundleMain.ts"), fsThread: source("workspace/fsThread.ts") },
  outExtension: { ".js": ".mjs" },
  format: "esm",
});

// The agent's single file. The thread module first, to a string it carries.
const thread = await build({
  ...common,
  outdir: undefined,
  entryPoints: [source("workspace/fsThread.ts")],
  format: "esm",
  write: false,
});
const threadCode = thread.outputFiles[0].text;
const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
/**
 * node-pty's stand-in in boxd.mjs: never called, as the agent's terminals spawn through
 * `script` (src/terminals/scriptPty.ts); it is bundled only because boxd.mjs also holds boxd's
 * in-box server, whose terminals use node-pty.
 */
const noPty = {
  name: "no-node-pty",
  setup(plugin) {
    plugin.onResolve({ filter: /^node-pty$/ }, () => ({ path: "node-pty", namespace: "no-pty" }));
    plugin.onLoad({ filter: /.*/, namespace: "no-pty" }, () => ({
      contents:
        'export function spawn() { throw new Error("node-pty is not in boxd.mjs: only the agent\'s terminals (through script) are"); }',
      loader: "js",
    }));
  },
};
await build({
  ...common,
  external: [],
  plugins: [noPty],
  entryPoints: { boxd: source("main.ts") },
  outExtension: { ".js": ".mjs" },
  format: "esm",
  define: {
    __BOXD_FS_THREAD__: JSON.stringify(threadCode),
    __BOXD_VERSION__: JSON.stringify(manifest.version),
  },
  // Bundled CommonJS dependencies (pino) require Node's own modules: an ES module has no
  // require of its own.
  banner: {
    js: 'import { createRequire as __boxdCreateRequire } from "node:module"; const require = __boxdCreateRequire(import.meta.url);',
  },
});

const flags = JSON.parse(readFileSync(new URL("../node-flags.json", import.meta.url), "utf8"));
execFileSync(process.execPath, [...flags, `${dist}/main.mjs`, "--write-code-cache"], {
  stdio: "inherit",
});
