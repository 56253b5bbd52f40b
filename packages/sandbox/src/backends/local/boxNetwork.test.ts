import { describe, expect, it } from "vitest";
import { resolveNetwork } from "./boxNetwork.ts";
import type { LocalBackendLogger } from "./logger.ts";

function recordingLogger() {
  const warnings: unknown[] = [];
  const logger: LocalBackendLogger = {
    info: () => undefined,
    warn: (fields: object) => {
      warnings.push(fields);
    },
    error: () => undefined,
  };
  return { logger, warnings };
}

describe("resolveNetwork", () => {
  it("gives egress where the probe allows it, with the group slirp4netns runs under", async () => {
    const { logger } = recordingLogger();
    const resolved = await resolveNetwork({
      requested: "egress",
      isolated: true,
      logger,
      probe: () => Promise.resolve({ ok: true, gid: 995 }),
    });
    expect(resolved).toEqual({ network: "egress", gid: 995 });
  });

  it("falls back to none where egress cannot be given, and says so once", async () => {
    const { logger, warnings } = recordingLogger();
    const refused = () => Promise.resolve({ ok: false as const, reason: "no slirp4netns" });
    for (let start = 0; start < 3; start += 1)
      expect(
        await resolveNetwork({ requested: "egress", isolated: true, logger, probe: refused }),
      ).toEqual({ network: "none" });
    expect(warnings).toEqual([{ reason: "no slirp4netns" }]);
  });

  it("gives none when asked, and an unisolated box the host's network whatever was asked", async () => {
    const { logger } = recordingLogger();
    expect(await resolveNetwork({ requested: "none", isolated: true, logger })).toEqual({
      network: "none",
    });
    expect(await resolveNetwork({ requested: "egress", isolated: false, logger })).toEqual({
      network: "host",
    });
  });
});
