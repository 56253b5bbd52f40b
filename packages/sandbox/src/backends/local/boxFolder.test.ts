import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { noBoxLimits } from "../../spawner/backend.ts";
import { boxLayout, confinementOf, readBoxRecord, writeBoxRecord } from "./boxFolder.ts";

let dataDir = "";
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "berth-box-folder-"));
});
afterAll(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const fields = {
  metadata: { workspaceId: "w", leaseId: "l", epoch: 1, allocationId: "a" },
  createdAt: "2026-12-01T00:00:00.000Z",
};

async function layoutWith(instanceId: string, record: object) {
  const layout = boxLayout({ dataDir, instanceId });
  await mkdir(layout.folder, { recursive: true });
  await writeFile(layout.recordFile, JSON.stringify({ instanceId, ...fields, ...record }));
  return layout;
}

describe("a box record's confinement", () => {
  it("reads a record written before limits were recorded as having none", async () => {
    const layout = await layoutWith("box-before-limits", {
      format: 2,
      isolation: "none",
      network: "host",
      boxd: null,
    });
    const record = await readBoxRecord(layout);
    expect(record === undefined ? undefined : confinementOf(record)).toEqual({
      isolation: "none",
      network: "host",
      limits: noBoxLimits,
    });
  });

  it("reads a record from before boxd listened on a socket as stopped, on the host's network", async () => {
    const layout = await layoutWith("box-format-1", {
      format: 1,
      isolation: "bubblewrap",
      boxd: { port: 7070 },
    });
    expect(await readBoxRecord(layout)).toMatchObject({
      network: "host",
      user: null,
      limits: noBoxLimits,
      boxd: null,
    });
  });

  it("keeps the limits a record holds, through a rewrite", async () => {
    const limits = { processes: 256, memoryBytes: 2 ** 32, cpuWeight: 100, diskBytes: null };
    const layout = await layoutWith("box-limited", {
      format: 2,
      isolation: "bubblewrap",
      network: "egress",
      limits,
      boxd: null,
    });
    const record = await readBoxRecord(layout);
    if (record === undefined) throw new Error("no record");
    await writeBoxRecord(layout, record);
    const reread = await readBoxRecord(layout);
    expect(reread === undefined ? undefined : confinementOf(reread)).toEqual({
      isolation: "bubblewrap",
      network: "egress",
      limits,
    });
  });
});
