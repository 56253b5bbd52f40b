// Import boundaries, as `no-restricted-imports` blocks.
//
// ESLint never merges one rule's options across config blocks: the last block matching a
// file wins. So each area below lists its COMPLETE pattern set (shared pieces spread in
// deliberately), areas run from general to specific, and each area is emitted three times —
// production, env-exempt and test files — so the later, narrower block wins for those files.

/** @typedef {import("eslint").Linter.Config} Config */
/** @typedef {{ group: string[], message: string } | { regex: string, message: string }} Pattern */

/** Files that are tests or test drivers: they may use test helpers and read process.env. */
export const TEST_FILES = [
  "**/*.test.{ts,tsx}",
  "**/test/**",
  "**/tests/**",
  "e2e/**",
  "bench/**",
  "**/vitest.config.{ts,mts,js,mjs}",
];

export const ENV_MESSAGE =
  "Read configuration in an env.ts module (validated once) and import it from there.";

/** Files allowed to read process.env besides tests: the env module and tool entry points. */
export const ENV_FILES = [
  "**/env.{ts,js,mjs}",
  "**/*.config.{js,ts,mjs,cjs}",
  "**/scripts/**/*.{mjs,js,cjs}",
];

/** A module and any subpath of it, as gitignore-style globs. */
const withSubpaths = (/** @type {string[]} */ ...names) =>
  names.flatMap((name) => [name, `${name}/**`]);

/** Relative specifiers that climb out of a sandbox folder into one of `dirs`. */
const upInto = (/** @type {string[]} */ ...dirs) =>
  `^(?:\\./)?(?:\\.\\./)+(?:src/)?(?:${dirs.join("|")})(?:/|$)`;

/** @satisfies {Record<string, Pattern>} */
const P = {
  deepSrc: {
    group: ["@berth/*/src", "@berth/*/src/**"],
    message:
      "Import the package entry from its package.json `exports`; add an export there instead of reaching into src/.",
  },
  prisma: {
    group: withSubpaths("@prisma/client", "@prisma/adapter-pg"),
    message: "Only @berth/db talks to Prisma: import the client, types and queries from @berth/db.",
  },
  generatedClient: {
    regex: "(?:^|/)generated/prisma(?:/|$)",
    message:
      "The generated Prisma client is private to @berth/db: import what you need from @berth/db.",
  },
  kube: {
    group: withSubpaths("@kubernetes/client-node"),
    message:
      "Only packages/sandbox/src/backends/kubernetes talks to Kubernetes: go through the sandbox backend port (tests: packages/kube-sim or @berth/testkit).",
  },
  testOnly: {
    group: withSubpaths("@berth/sandbox/testing", "@berth/client/testing", "@berth/testkit"),
    message:
      "Test helpers are for tests (*.test.ts, test/, tests/, e2e/, bench/): production code takes real dependencies, injected.",
  },
  sandboxTesting: {
    regex: "^\\.\\.?/(?:\\.\\./)*(?:src/)?testing(?:/|$)",
    message:
      "sandbox/src/testing is for tests only: production code takes real dependencies, injected.",
  },
  webServerOnly: {
    group: withSubpaths("@berth/db", "@berth/sandbox", "@prisma", "@kubernetes/client-node"),
    message:
      "apps/web reaches data and sandboxes through @berth/api (shared shapes: @berth/validators), never directly.",
  },
  apiSandboxEntry: {
    // The light entries keep the web server's bundle free of the backends (child processes,
    // bubblewrap) that the root entry brings.
    group: [
      "@berth/sandbox/*",
      "!@berth/sandbox/testing",
      "!@berth/sandbox/clock",
      "!@berth/sandbox/lease",
      "!@berth/sandbox/events",
    ],
    message:
      "packages/api uses @berth/sandbox through its root entry or the light entries ./clock, ./lease and ./events only: export what you need from there.",
  },
  dbNoBerth: {
    group: ["@berth/*"],
    message:
      "@berth/db is the bottom layer and imports no @berth package (they all depend on it); move the code up or pass it in.",
  },
  kubeSimNoBerth: {
    group: ["@berth/*"],
    message:
      "@berth/kube-sim is a standalone fake of the Kubernetes API and imports no @berth package; copy the types it needs.",
  },
  leaseSiblings: {
    regex: upInto("spawner", "backends", "archive", "archives", "services", "routing", "machines"),
    message:
      "lease/ is the core of the sandbox and imports no sibling folder: move shared types into lease/ or have the caller pass them in.",
  },
  spawnerSiblings: {
    regex: upInto("backends", "archive", "services", "routing", "machines"),
    message:
      "spawner/ depends only on lease/ and its own backend port: receive a backend by injection from the composition root.",
  },
  noBackends: {
    regex: upInto("backends"),
    message: "Use the backend port, not ../backends implementations: have the backend injected.",
  },
};

/** Dropped in test files: the ban is on production code using test helpers. */
const PROD_ONLY = new Set([P.testOnly, P.sandboxTesting]);

const DEFAULT = [P.deepSrc, P.prisma, P.generatedClient, P.kube, P.testOnly];
const SANDBOX = [...DEFAULT, P.sandboxTesting];

/** General first: a later area overrides an earlier one for the files both match. */
const AREAS = [
  { name: "everywhere", files: ["**/*"], patterns: DEFAULT },
  // P.webServerOnly already covers prisma and kube, so one import is reported once.
  {
    name: "apps/web",
    files: ["apps/web/**"],
    patterns: [P.deepSrc, P.generatedClient, P.webServerOnly, P.testOnly],
  },
  { name: "api", files: ["packages/api/**"], patterns: [...DEFAULT, P.apiSandboxEntry] },
  // @berth/* already covers deep imports and test helpers.
  { name: "db", files: ["packages/db/**"], patterns: [P.kube, P.dbNoBerth] },
  {
    name: "kube-sim",
    files: ["packages/kube-sim/**"],
    patterns: [P.prisma, P.generatedClient, P.kubeSimNoBerth],
  },
  // testkit is test support itself: it may use kube and the sandbox test helpers.
  {
    name: "testkit",
    files: ["packages/testkit/**"],
    patterns: [P.deepSrc, P.prisma, P.generatedClient],
  },
  { name: "sandbox", files: ["packages/sandbox/**"], patterns: SANDBOX },
  {
    name: "sandbox/lease",
    files: ["packages/sandbox/src/lease/**"],
    patterns: [...SANDBOX, P.leaseSiblings],
  },
  {
    name: "sandbox/spawner",
    files: ["packages/sandbox/src/spawner/**"],
    patterns: [...SANDBOX, P.spawnerSiblings],
  },
  {
    name: "sandbox/services",
    files: ["packages/sandbox/src/{archive,archives,services,routing,machines}/**"],
    patterns: [...SANDBOX, P.noBackends],
  },
  {
    name: "sandbox/backends/kubernetes",
    files: ["packages/sandbox/src/backends/kubernetes/**"],
    patterns: [P.deepSrc, P.prisma, P.generatedClient, P.testOnly, P.sandboxTesting],
  },
  {
    name: "sandbox/testing",
    files: ["packages/sandbox/src/testing/**"],
    patterns: [P.deepSrc, P.prisma, P.generatedClient],
  },
];

/** `import { env } from "node:process"` is process.env under another name. */
const ENV_IMPORTS = ["process", "node:process"].map((name) => ({
  name,
  importNames: ["env"],
  message: ENV_MESSAGE,
}));

/** Every file in `files` that also matches one of `subset` (nested arrays mean AND). */
const within = (/** @type {string[]} */ files, /** @type {string[]} */ subset) =>
  files.flatMap((file) => subset.map((glob) => [file, glob]));

/** @param {Pattern[]} patterns */
const options = (patterns, { env = true, prod = true } = {}) => ({
  ...(env ? { paths: ENV_IMPORTS } : {}),
  patterns: prod ? patterns : patterns.filter((pattern) => !PROD_ONLY.has(pattern)),
});

/** @returns {Config[]} */
export function importBoundaries() {
  return AREAS.flatMap(({ name, files, patterns }) => [
    {
      name: `berth/imports/${name}`,
      files,
      rules: { "no-restricted-imports": ["error", options(patterns)] },
    },
    {
      name: `berth/imports/${name}/env-files`,
      files: within(files, ENV_FILES),
      rules: { "no-restricted-imports": ["error", options(patterns, { env: false })] },
    },
    {
      name: `berth/imports/${name}/tests`,
      files: within(files, TEST_FILES),
      rules: { "no-restricted-imports": ["error", options(patterns, { env: false, prod: false })] },
    },
  ]);
}
