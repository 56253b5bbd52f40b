import { describe, expect, it } from "vitest";
import {
  buildHolderEpochPatch,
  checkEpoch,
  readHolderEpoch,
  UnfenceableWriteError,
  type HolderEpochReading,
} from "./holderEpoch.ts";
import type { KubeObject } from "./kubeObjects.ts";

const EPOCH = "/metadata/annotations/sandbox.berth.dev~1holder-epoch";
const CHANGED = "/metadata/annotations/sandbox.berth.dev~1operating-mode-changed-at";
const NOW = "2026-12-02T00:00:00.000Z";

function reading(parts: Partial<HolderEpochReading>): HolderEpochReading {
  return {
    epoch: 0,
    annotation: undefined,
    hasAnnotations: true,
    resourceVersion: "41",
    sandboxUid: "uid-1",
    ...parts,
  };
}

function sandbox(annotations?: Record<string, string>): KubeObject {
  return {
    metadata: {
      name: "berth-aaaaaaaaaaaa-bbbbbbbbbbbb",
      uid: "uid-1",
      resourceVersion: "41",
      ...(annotations === undefined ? {} : { annotations }),
    },
  };
}

describe("reading the stored epoch", () => {
  it("reads absent as 0, decimals as numbers, anything else as unreadable", () => {
    expect(readHolderEpoch(sandbox()).epoch).toBe(0);
    expect(readHolderEpoch(sandbox({ "sandbox.berth.dev/holder-epoch": "7" })).epoch).toBe(7);
    for (const bad of ["07", "-1", "1.5", "latest", "", "99999999999999999999"])
      expect(readHolderEpoch(sandbox({ "sandbox.berth.dev/holder-epoch": bad })).epoch).toBe(
        "unreadable",
      );
    expect(readHolderEpoch(sandbox()).hasAnnotations).toBe(false);
  });

  it("refuses an epoch that is not a non-negative safe integer", () => {
    expect(() => checkEpoch(-1)).toThrow(/non-negative safe integer/);
    expect(() => checkEpoch(1.5)).toThrow(/non-negative safe integer/);
    expect(() => checkEpoch(2 ** 53)).toThrow(/non-negative safe integer/);
    expect(() => checkEpoch(0)).not.toThrow();
  });
});

describe("the fenced patch", () => {
  it("at a stored epoch: tests uid and epoch, then stamps, changed-at, mode", () => {
    expect(
      buildHolderEpochPatch({
        reading: reading({ epoch: 2, annotation: "2" }),
        epoch: 2,
        operatingMode: "Suspended",
        changedAt: NOW,
      }),
    ).toEqual([
      { op: "test", path: "/metadata/uid", value: "uid-1" },
      { op: "test", path: EPOCH, value: "2" },
      { op: "add", path: EPOCH, value: "2" },
      { op: "add", path: CHANGED, value: NOW },
      { op: "add", path: "/spec/operatingMode", value: "Suspended" },
    ]);
  });

  it("on an object with no annotations: the resourceVersion is the condition and the map is added whole", () => {
    expect(
      buildHolderEpochPatch({
        reading: reading({ hasAnnotations: false }),
        epoch: 3,
        operatingMode: "Suspended",
        changedAt: NOW,
      }),
    ).toEqual([
      { op: "test", path: "/metadata/uid", value: "uid-1" },
      { op: "test", path: "/metadata/resourceVersion", value: "41" },
      {
        op: "add",
        path: "/metadata/annotations",
        value: {
          "sandbox.berth.dev/holder-epoch": "3",
          "sandbox.berth.dev/operating-mode-changed-at": NOW,
        },
      },
      { op: "add", path: "/spec/operatingMode", value: "Suspended" },
    ]);
  });

  it("on an object with only foreign annotations: per-key adds keep them", () => {
    const ops = buildHolderEpochPatch({
      reading: reading({}),
      epoch: 3,
      operatingMode: "Running",
      changedAt: NOW,
    });
    expect(ops).toEqual([
      { op: "test", path: "/metadata/uid", value: "uid-1" },
      { op: "test", path: "/metadata/resourceVersion", value: "41" },
      { op: "add", path: EPOCH, value: "3" },
      { op: "add", path: CHANGED, value: NOW },
      { op: "add", path: "/spec/operatingMode", value: "Running" },
    ]);
    // A stamp-only write (a takeover) changes nothing else.
    expect(
      buildHolderEpochPatch({ reading: reading({ epoch: 2, annotation: "2" }), epoch: 5 }),
    ).toEqual([
      { op: "test", path: "/metadata/uid", value: "uid-1" },
      { op: "test", path: EPOCH, value: "2" },
      { op: "add", path: EPOCH, value: "5" },
    ]);
  });

  it("never sends an unconditional fenced write", () => {
    expect(() =>
      buildHolderEpochPatch({ reading: reading({ resourceVersion: undefined }), epoch: 1 }),
    ).toThrow(UnfenceableWriteError);
  });
});
