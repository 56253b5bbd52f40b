import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["harness/**/*.test.ts", "*/**/*.test.ts"],
    globalSetup: ["@berth/testkit/globalSetup"],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
