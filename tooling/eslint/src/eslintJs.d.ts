// @eslint/js 10.0.0 ships no type declarations; this is the part we use.
declare module "@eslint/js" {
  import type { Linter } from "eslint";

  const js: { configs: { recommended: Linter.Config; all: Linter.Config } };
  export default js;
}
