import { describe, expect, it } from "vitest";
import type { KubeObject } from "./kubeObjects.ts";
import { boxStateOf, isReadyNow, notReadyReason, operatingModeOf } from "./sandboxStatus.ts";

function sandbox(parts: {
  generation?: number;
  ready?: { status: string; observedGeneration?: number; reason?: string };
  mode?: string;
  deleting?: boolean;
}): KubeObject {
  return {
    metadata: {
      name: "berth-aaaaaaaaaaaa-bbbbbbbbbbbb",
      ...(parts.generation === undefined ? {} : { generation: parts.generation }),
      ...(parts.deleting === true ? { deletionTimestamp: "2026-12-02T00:00:00Z" } : {}),
    },
    spec: parts.mode === undefined ? {} : { operatingMode: parts.mode },
    status: parts.ready === undefined ? {} : { conditions: [{ type: "Ready", ...parts.ready }] },
  };
}

describe("a Sandbox's Ready for its current spec", () => {
  it("counts Ready only when its observedGeneration reaches the generation", () => {
    expect(
      isReadyNow(sandbox({ generation: 2, ready: { status: "True", observedGeneration: 2 } })),
    ).toBe(true);
    expect(
      isReadyNow(sandbox({ generation: 2, ready: { status: "True", observedGeneration: 3 } })),
    ).toBe(true);
    // The outcome of an earlier spec (just after a Running patch): not yet.
    const stale = sandbox({ generation: 3, ready: { status: "True", observedGeneration: 2 } });
    expect(isReadyNow(stale)).toBe(false);
    expect(boxStateOf(stale)).toBe("starting");
    expect(notReadyReason(stale)).toMatch(/earlier spec/);
  });

  it("takes plain Ready when either number is absent", () => {
    expect(isReadyNow(sandbox({ ready: { status: "True", observedGeneration: 1 } }))).toBe(true);
    expect(isReadyNow(sandbox({ generation: 4, ready: { status: "True" } }))).toBe(true);
    expect(isReadyNow(sandbox({ generation: 4, ready: { status: "False", reason: "X" } }))).toBe(
      false,
    );
    expect(isReadyNow(sandbox({ generation: 4 }))).toBe(false);
  });

  it("maps to the box states: gone, suspended, running, starting", () => {
    const ready = { status: "True", observedGeneration: 1 };
    expect(boxStateOf(sandbox({ generation: 1, ready, deleting: true }))).toBe("gone");
    expect(boxStateOf(sandbox({ generation: 1, ready, mode: "Suspended" }))).toBe("suspended");
    expect(boxStateOf(sandbox({ generation: 1, ready, mode: "Running" }))).toBe("running");
    expect(boxStateOf(sandbox({ generation: 1 }))).toBe("starting");
    expect(operatingModeOf(sandbox({}))).toBe("Running");
    expect(
      notReadyReason(sandbox({ ready: { status: "False", reason: "DependenciesNotReady" } })),
    ).toBe("Ready is False (DependenciesNotReady)");
  });
});
