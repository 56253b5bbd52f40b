import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createLock, inspectLock, removeLockIf, thisHolder } from "./holderLock.ts";
import { identify } from "./processInfo.ts";

let folder = "";
beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "berth-lock-"));
});
afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

describe("holder lock files", () => {
  it("are live while their holder runs and dead once it is killed, whatever their age", async () => {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 60000)"]);
    await once(child, "spawn");
    const path = join(folder, "a.lock");
    const holder = { ...(await identify(child.pid ?? 0)), host: hostname(), nonce: "n" };
    expect(await createLock(path, JSON.stringify(holder))).toBe(true);

    expect(await inspectLock(path)).toMatchObject({ kind: "live" });
    child.kill("SIGKILL");
    await once(child, "exit");
    expect(await inspectLock(path)).toMatchObject({ kind: "dead", text: JSON.stringify(holder) });
  });

  it("are created once, and removed only by whoever still finds its own text in them", async () => {
    const path = join(folder, "nested", "b.lock");
    const mine = JSON.stringify(await thisHolder());
    expect(await inspectLock(path)).toEqual({ kind: "free" });
    expect(await createLock(path, mine)).toBe(true);
    expect(await createLock(path, JSON.stringify(await thisHolder()))).toBe(false);
    expect(await inspectLock(path)).toMatchObject({ kind: "live", text: mine });

    expect(await removeLockIf(path, "a rival's")).toBe(false);
    expect(await readFile(path, "utf8")).toBe(mine);
    expect(await removeLockIf(path, mine)).toBe(true);
    expect(await inspectLock(path)).toEqual({ kind: "free" });
  });

  it("leave another host's (or pid namespace's) holder to it, and judge a holder without one here", async () => {
    const gone = { pid: 4_194_305, startTicks: "1", bootId: null, nonce: "n" };
    const far = join(folder, "far.lock");
    const container = join(folder, "container.lock");
    const old = join(folder, "old.lock");
    await writeFile(far, JSON.stringify({ ...gone, host: "another-host" }));
    const sameHost = { ...gone, host: hostname(), pidNamespace: "pid:[1]" };
    await writeFile(container, JSON.stringify(sameHost));
    await writeFile(old, JSON.stringify(gone));

    expect(await inspectLock(far)).toMatchObject({ kind: "elsewhere" });
    expect(await inspectLock(container)).toMatchObject({ kind: "elsewhere" });
    expect(await inspectLock(old)).toMatchObject({ kind: "dead" });
    expect((await thisHolder()).pidNamespace).toMatch(/^pid:\[\d+\]$/);
  });
});
