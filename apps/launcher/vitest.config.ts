import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: ["@berth/testkit/globalSetup"],
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
