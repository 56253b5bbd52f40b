// Lints test/fixtures (a miniature of the repo layout) with the house config rooted there, and
// checks every file's exact findings, so a rule that is configured but silent fails here.
import path from "node:path";
import { ESLint, type Linter } from "eslint";
import { beforeAll, describe, expect, it } from "vitest";

import { createBerthConfig } from "../src/index.js";

const fixturesRoot = path.join(import.meta.dirname, "fixtures");
const config = createBerthConfig({ rootDir: fixturesRoot });

/** A finding: the rule id, plus a piece of the message where one rule carries many. */
type Finding = readonly [ruleId: string, says?: string];

const TS = "@typescript-eslint";
const boundary = (says: string): Finding => ["no-restricted-imports", says];
const envRead: Finding = ["no-restricted-properties", "env.ts"];

/** Every fixture and what it must report, in source order. [] means clean. */
const expected: Record<string, Finding[]> = {
  "ambient.d.ts": [],
  "e2e/smoke.ts": [],
  "apps/web/next-sitemap.config.ts": [],
  "apps/web/src/app/not-found.tsx": [],
  "apps/web/src/css-modules.d.ts": [],
  "apps/web/src/importsDb.ts": [boundary("apps/web reaches data")],
  "apps/web/src/logs.ts": [["no-console"]],
  "packages/api/src/deepImport.ts": [boundary("package.json `exports`")],
  "packages/api/src/fourParams.ts": [[`${TS}/max-params`]],
  "packages/api/src/importsEnv.ts": [boundary("'env' import from 'node:process'")],
  "packages/api/src/importsKube.ts": [boundary("Only packages/sandbox/src/backends/kubernetes")],
  "packages/api/src/importsPrisma.ts": [
    boundary("Only @berth/db talks to Prisma"),
    boundary("generated Prisma client is private"),
  ],
  "packages/api/src/importsSandboxSubpath.ts": [
    boundary("through its root entry or the light entries"),
  ],
  "packages/api/src/importsSandboxTesting.ts": [boundary("Test helpers are for tests")],
  "packages/api/src/issue-42-lease-expiry.test.ts": [],
  "packages/api/src/logs.ts": [["no-console"]],
  "packages/api/src/sandboxTesting.test.ts": [],
  "packages/api/test/helpers.ts": [],
  "packages/db/prisma.config.ts": [],
  "packages/db/scripts/seed.mjs": [],
  "packages/db/src/env.ts": [],
  "packages/db/src/importsBerth.ts": [boundary("@berth/db is the bottom layer")],
  "packages/db/src/readsEnv.ts": [envRead, envRead],
  "packages/db/src/usesPrisma.ts": [],
  "packages/kube-sim/src/importsBerth.ts": [boundary("@berth/kube-sim is a standalone fake")],
  "packages/testkit/src/sandboxHarness.ts": [],
  "packages/validators/src/importsTestkit.ts": [boundary("Test helpers are for tests")],
  "packages/sandbox/src/archive/importsBackend.ts": [boundary("not ../backends implementations")],
  "packages/sandbox/src/archives/importsBackend.ts": [boundary("not ../backends implementations")],
  "packages/sandbox/src/backends/kubernetes/client.ts": [],
  "packages/sandbox/src/backends/memory.ts": [],
  "packages/sandbox/src/lease/Bad_name.ts": [["unicorn/filename-case"]],
  "packages/sandbox/src/lease/clean.ts": [],
  "packages/sandbox/src/lease/floatingPromise.ts": [[`${TS}/no-floating-promises`]],
  "packages/sandbox/src/lease/importsSpawner.ts": [boundary("lease/ is the core")],
  "packages/sandbox/src/lease/importsTesting.ts": [boundary("sandbox/src/testing is for tests")],
  "packages/sandbox/src/lease/lease.test.ts": [],
  "packages/sandbox/src/lease/misusedPromise.ts": [[`${TS}/no-misused-promises`]],
  "packages/sandbox/src/lease/nested/importsBackend.ts": [boundary("lease/ is the core")],
  "packages/sandbox/src/lease/nonExhaustive.ts": [
    [`${TS}/switch-exhaustiveness-check`, '"expired"'],
    [`${TS}/switch-exhaustiveness-check`, '"expired"'],
  ],
  "packages/sandbox/src/lease/nonNull.ts": [[`${TS}/no-non-null-assertion`]],
  "packages/sandbox/src/lease/templateBoolean.ts": [[`${TS}/restrict-template-expressions`]],
  "packages/sandbox/src/lease/types.ts": [],
  "packages/sandbox/src/lease/unsafeAny.ts": [
    [`${TS}/no-explicit-any`],
    [`${TS}/no-unsafe-return`],
    [`${TS}/no-unsafe-member-access`],
  ],
  "packages/sandbox/src/lease/unsafeValues.ts": [
    [`${TS}/no-unsafe-assignment`],
    [`${TS}/no-unsafe-argument`],
    [`${TS}/no-unsafe-call`],
  ],
  "packages/sandbox/src/lease/valueImportAsType.ts": [[`${TS}/consistent-type-imports`]],
  "packages/sandbox/src/lease/voidValue.ts": [[`${TS}/no-confusing-void-expression`]],
  "packages/sandbox/src/machines/importsKube.ts": [
    boundary("Only packages/sandbox/src/backends/kubernetes"),
  ],
  "packages/sandbox/src/spawner/importsBackend.ts": [boundary("spawner/ depends only on lease/")],
  "packages/sandbox/src/spawner/port.ts": [],
  "packages/sandbox/src/spawner/spawner.ts": [],
  "packages/sandbox/src/testing/fakeClock.ts": [],
  "tooling/ci/src/logs.ts": [["no-console"]],
};

let results: ESLint.LintResult[];
// Type-aware linting of the fixtures builds a TypeScript program: seconds on an idle machine,
// more when the suite shares two cores with the other suites.
beforeAll(async () => {
  const eslint = new ESLint({
    cwd: fixturesRoot,
    overrideConfigFile: true,
    overrideConfig: config,
  });
  results = await eslint.lintFiles(["."]);
}, 120_000);

const relative = (result: ESLint.LintResult): string =>
  path.relative(fixturesRoot, result.filePath).split(path.sep).join("/");
const allMessages = (): Linter.LintMessage[] => results.flatMap((result) => result.messages);

describe("house ESLint config on the fixtures", () => {
  it("lints exactly the listed fixtures", () => {
    expect(results.map(relative).sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))("%s", (file, findings) => {
    const messages = results.find((candidate) => relative(candidate) === file)?.messages ?? [];
    expect(messages.map((message) => message.ruleId)).toEqual(findings.map(([ruleId]) => ruleId));
    findings.forEach(([, says], index) => {
      if (says !== undefined) expect(messages[index]?.message).toContain(says);
    });
  });

  // Guards the config itself: anything it switches on must show up in some fixture.
  it("every rule the house config turns on fires somewhere", () => {
    const fired = new Set(allMessages().map((message) => message.ruleId));
    const configured = config
      .filter((block) => block.name?.startsWith("berth/"))
      .flatMap((block) => Object.entries(block.rules ?? {}))
      .filter(
        ([, setting]) => setting !== "off" && !(Array.isArray(setting) && setting[0] === "off"),
      )
      .map(([ruleId]) => ruleId);
    expect([...new Set(configured)].filter((ruleId) => !fired.has(ruleId))).toEqual([]);
  });

  it("every import boundary message fires somewhere", () => {
    const said = allMessages().map((message) => message.message);
    const boundaryMessages = config.flatMap((block) => {
      const setting = block.rules?.["no-restricted-imports"];
      if (!Array.isArray(setting)) return [];
      const options = setting[1] as {
        paths?: { message: string }[];
        patterns: { message: string }[];
      };
      return [...(options.paths ?? []), ...options.patterns].map((entry) => entry.message);
    });
    const silent = [...new Set(boundaryMessages)].filter(
      (message) => !said.some((text) => text.endsWith(message)),
    );
    expect(silent).toEqual([]);
  });
});
