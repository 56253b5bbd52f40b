import { readFileSync } from "node:fs";
import type { AgentFacts } from "@berth/box-protocol";

/** boxd's package version, inlined by scripts/bundle.mjs into dist/boxd.mjs. */
declare const __BOXD_VERSION__: string | undefined;

function boxdVersion(): string {
  if (typeof __BOXD_VERSION__ === "string") return __BOXD_VERSION__;
  // From sources: the package beside src/.
  const manifest = JSON.parse(
    readFileSync(new URL("../../package.json", import.meta.url), "utf8"),
  ) as { version: string };
  return manifest.version;
}

/** What this machine is, as the agent reports it on enrollment and at every connect. */
export function agentFacts(hasDisplay: boolean): AgentFacts {
  return { os: process.platform, arch: process.arch, hasDisplay, boxdVersion: boxdVersion() };
}
