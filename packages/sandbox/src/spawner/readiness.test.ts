// The one readiness wait (spawner/readiness.ts) against a box whose address drops every packet:
// its health probe never answers, and the wait still ends at its deadline — cut short there, not
// at the transport's own connect timeout — naming what it waited for as a BoxError `timeout`.
import { BoxError, type BoxClient } from "@berth/box-protocol";
import { describe, expect, it } from "vitest";
import { BackendError } from "./backend.ts";
import { waitUntilServing } from "./readiness.ts";

describe("waitUntilServing", () => {
  it("cuts a health probe that never answers at the deadline: unavailable, its cause a BoxError timeout", async () => {
    let probes = 0;
    // A box client whose connection hangs, as to a pod IP whose packets are dropped.
    const silent = {
      health: () => {
        probes++;
        return new Promise<never>(() => undefined);
      },
    } as unknown as BoxClient;
    const error = await waitUntilServing({
      instanceId: "box-1",
      reach: () => Promise.resolve(silent),
      timeoutMs: 300,
      intervalMs: 10,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BackendError);
    expect((error as BackendError).code).toBe("unavailable");
    expect((error as BackendError).message).toMatch(
      /box box-1 did not serve within 300 ms: boxd did not answer within \d+ ms/,
    );
    const cause = (error as BackendError).cause;
    expect(cause).toBeInstanceOf(BoxError);
    expect((cause as BoxError).code).toBe("timeout");
    expect(probes).toBe(1);
  });
});
