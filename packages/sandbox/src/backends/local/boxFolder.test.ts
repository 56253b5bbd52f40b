import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { boxLayout, readBoxRecord, writeBoxRecord } from "./boxFolder.ts";

const folders: string[] = [];

afterAll(async () => {
  for (const folder of folders) await rm(folder, { recursive: true, force: true });
});

async function layoutWith(record: object) {
  const dataDir = await mkdtemp(join(tmpdir(), "berth-record-"));
  folders.push(dataDir);
  const layout = boxLayout({ dataDir, instanceId: "box-old" });
  await mkdir(layout.folder, { recursive: true });
  await writeFile(layout.recordFile, JSON.stringify(record));
  return layout;
}

const fields = {
  instanceId: "box-old",
  metadata: { workspaceId: "ws", leaseId: "lease", epoch: 1, allocationId: "old" },
  createdAt: "2025-01-01T00:00:00.000Z",
  isolation: "bubblewrap",
};
const NO_LIMITS = { processes: null, memoryBytes: null, cpuWeight: null, diskBytes: null };

describe("box.json", () => {
  it("reads a record from before limits were recorded as limited by nothing known", async () => {
    const current = await layoutWith({ format: 2, ...fields, network: "none", boxd: null });
    expect((await readBoxRecord(current))?.limits).toEqual(NO_LIMITS);
    const older = await layoutWith({ format: 1, ...fields, boxd: { port: 7070 } });
    expect(await readBoxRecord(older)).toMatchObject({ network: "host", limits: NO_LIMITS });
  });

  it("keeps the limits a start recorded", async () => {
    const layout = await layoutWith({ format: 2, ...fields, network: "none", boxd: null });
    const record = await readBoxRecord(layout);
    if (record === undefined) throw new Error("no record");
    const limits = { processes: 512, memoryBytes: 2 ** 31, cpuWeight: 100, diskBytes: 2 ** 33 };
    await writeBoxRecord(layout, { ...record, limits });
    expect((await readBoxRecord(layout))?.limits).toEqual(limits);
  });
});
