// Runs the Prisma CLI with its engine download disabled: every Prisma command first
// checks for the native schema engine, so we point it at a stub that exits 1.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const cli = require.resolve("prisma/build/index.js");
const stub = fileURLToPath(new URL("./no-native-engine.sh", import.meta.url));

const result = spawnSync(process.execPath, [cli, ...process.argv.slice(2)], {
  stdio: "inherit",
  cwd: fileURLToPath(new URL("..", import.meta.url)),
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: stub,
    PRISMA_QUERY_ENGINE_LIBRARY: stub,
    CHECKPOINT_DISABLE: "1",
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
  },
});
process.exit(result.status ?? 1);
