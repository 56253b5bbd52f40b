import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // The fixtures contain *.test.ts files that are lint inputs, not tests.
    include: ["test/*.test.ts"],
    // Typed linting starts a TypeScript project service: the first lint takes a while.
    testTimeout: 120_000,
  },
});
