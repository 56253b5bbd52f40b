import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "tests/**/*.test.ts"],
    // The test files share one module graph per worker: client-node and the parsed CRDs load
    // once instead of once per file. Each test starts its own simulator, so no state is shared.
    isolate: false,
  },
});
