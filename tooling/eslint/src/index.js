// Berth's house ESLint config. Plain ESM + JSDoc so ESLint loads it without a TS loader.
import js from "@eslint/js";
import unicorn from "eslint-plugin-unicorn";
import globals from "globals";
import tseslint from "typescript-eslint";
import { ENV_FILES, ENV_MESSAGE, TEST_FILES, importBoundaries } from "./boundaries.js";

/** @typedef {import("eslint").Linter.Config} Config */

const JS_FILES = ["**/*.{js,mjs,cjs}"];

const IGNORES = [
  "**/node_modules/**",
  "**/dist/**",
  "**/.next/**",
  "**/next-env.d.ts",
  "**/.turbo/**",
  "**/coverage/**",
  "**/src/generated/**",
  "reports/**",
  ".tools/**",
  ".data/**",
  "test-results/**",
  "playwright-report/**",
  "bench/results/**",
  // Deliberately broken; rules.test.ts lints them with the fixtures as root.
  "tooling/eslint/test/fixtures/**",
];

/** Basenames that other tools choose for us (regex sources: config stays serializable). */
const FILENAME_EXCEPTIONS = [
  // Regression tests are named after their issue: issue-123-lease-expiry.test.ts.
  String.raw`^issue-\d+-[a-z\d]+(?:-[a-z\d]+)*\.test\.tsx?$`,
  // Next.js app-router file conventions.
  String.raw`^(?:not-found|global-error|global-not-found|opengraph-image|twitter-image|apple-icon|instrumentation-client)\.[jt]sx?$`,
  // Tool configs (next-sitemap.config.ts) and declaration files named after what they declare.
  String.raw`\.config\.[cm]?[jt]s$`,
  String.raw`\.d\.[cm]?ts$`,
];

/**
 * The house rules, stated here even where strictTypeChecked already enables them, so they stay
 * on whatever the preset does next. rules.test.ts checks that each one fires.
 * @type {Config["rules"]}
 */
const HOUSE_RULES = {
  "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "separate-type-imports" }],
  // Defaults on purpose: `default:` does not make a switch over a union exhaustive
  // (considerDefaultExhaustiveForUnions is false), so a new member is always reported.
  "@typescript-eslint/switch-exhaustiveness-check": "error",
  "@typescript-eslint/no-floating-promises": "error",
  "@typescript-eslint/no-misused-promises": "error",
  "@typescript-eslint/no-non-null-assertion": "error",
  "@typescript-eslint/no-explicit-any": "error",
  "@typescript-eslint/no-unsafe-argument": "error",
  "@typescript-eslint/no-unsafe-assignment": "error",
  "@typescript-eslint/no-unsafe-call": "error",
  "@typescript-eslint/no-unsafe-member-access": "error",
  "@typescript-eslint/no-unsafe-return": "error",
  // The TS variant understands `this` parameters; running both would report twice.
  "max-params": "off",
  "@typescript-eslint/max-params": ["error", { max: 3 }],
  // `() => resolve(x)` and `expect(() => f()).toThrow()` are idiomatic; other void misuse stays an error.
  "@typescript-eslint/no-confusing-void-expression": ["error", { ignoreArrowShorthand: true }],
  // strict's setting plus numbers. Options replace the preset's rather than merge with them,
  // so every flag is spelled out (the rule's own defaults allow nearly everything).
  "@typescript-eslint/restrict-template-expressions": [
    "error",
    {
      allowNumber: true,
      allowAny: false,
      allowBoolean: false,
      allowNever: false,
      allowNullish: false,
      allowRegExp: false,
    },
  ],
  // Logging goes through a logger (pino); CLI scripts and benchmarks print, below.
  "no-console": "error",
  "no-restricted-properties": [
    "error",
    {
      object: "process",
      property: "env",
      message: ENV_MESSAGE,
    },
  ],
};

/**
 * @param {{ rootDir: string }} options `rootDir` is the repo root: tsconfig lookups start there
 *   and every `files`/`ignores` glob in this config is relative to it.
 * @returns {Config[]}
 */
export function createBerthConfig({ rootDir }) {
  /** @type {Config[]} */
  const own = [
    { name: "berth/ignores", ignores: IGNORES },
    {
      name: "berth/typed-linting",
      languageOptions: {
        globals: globals.node,
        parserOptions: { projectService: true, tsconfigRootDir: rootDir },
      },
      linterOptions: { reportUnusedDisableDirectives: "error" },
    },
    { name: "berth/house-rules", rules: HOUSE_RULES },
    // JS files (configs, scripts) are mostly in no tsconfig: lint them without type information
    // rather than fail with "not found by the project service".
    { ...tseslint.configs.disableTypeChecked, name: "berth/js-untyped", files: JS_FILES },
    {
      name: "berth/console-allowed",
      files: ["**/scripts/**", "bench/**"],
      rules: { "no-console": "off" },
    },
    {
      name: "berth/env-allowed",
      files: [...ENV_FILES, ...TEST_FILES],
      rules: { "no-restricted-properties": "off" },
    },
    {
      name: "berth/filenames",
      plugins: { unicorn },
      rules: {
        "unicorn/filename-case": [
          "error",
          { case: "camelCase", checkDirectories: false, ignore: FILENAME_EXCEPTIONS },
        ],
      },
    },
    ...importBoundaries(),
  ];
  return [
    js.configs.recommended,
    .../** @type {Config[]} */ (tseslint.configs.strictTypeChecked),
    // basePath makes the globs relative to rootDir whatever ESLint's cwd is.
    ...own.map((config) => ({ ...config, basePath: rootDir })),
  ];
}
