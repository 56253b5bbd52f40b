import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The CLI under test is the bundle, as people run it: built once before any file starts.
    globalSetup: ["@berth/testkit/globalSetup", "./test/support/buildCli.ts"],
    // Each file serves its own API and starts real boxes; two at a time suits 2-core machines.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
