// Bundles the CLI into one ES module (dist/berth.mjs) that plain `node` runs: no tsx, no
// workspace sources at run time, so it starts quickly and can be copied anywhere with Node 20.
import { chmod } from "node:fs/promises";
import { build } from "esbuild";

const outfile = new URL("../dist/berth.mjs", import.meta.url).pathname;

await build({
  entryPoints: [new URL("../src/berth.ts", import.meta.url).pathname],
  outfile,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // CommonJS dependencies call require(); an ES module has none of its own.
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire } from 'node:module'; const require = createRequire(import.meta.url);",
  },
  logLevel: "warning",
});
await chmod(outfile, 0o755);
