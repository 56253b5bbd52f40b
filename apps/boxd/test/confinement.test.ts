import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, startBoxd, tempFolder, type BoxdProcess } from "./boxdProcess.ts";

let boxd: BoxdProcess;
/** A folder beside the workspace that nothing may ever reach. */
let outside: string;

beforeAll(async () => {
  outside = await tempFolder("boxd-outside-");
  await writeFile(join(outside, "secret.txt"), "top secret");
  boxd = await startBoxd();
});
afterAll(async () => {
  await boxd.stop();
});

describe("confinement to the workspace root", () => {
  it("refuses .. and absolute paths in every operation", async () => {
    const { client } = boxd;
    const escaping = [
      `../${outside.split("/").at(-1) ?? ""}/secret.txt`,
      "a/../../x",
      join(outside, "secret.txt"),
    ];
    for (const path of escaping) {
      expect(await errorCode(client.read({ path }))).toBe("outside_workspace");
      expect(await errorCode(client.write({ path, content: "pwned" }))).toBe("outside_workspace");
      expect(await errorCode(client.upload({ path, body: "pwned" }))).toBe("outside_workspace");
      expect(await errorCode(client.list({ path }))).toBe("outside_workspace");
      expect(await errorCode(client.stat({ path }))).toBe("outside_workspace");
      expect(await errorCode(client.mkdir({ path }))).toBe("outside_workspace");
      expect(await errorCode(client.remove({ path }))).toBe("outside_workspace");
      expect(await errorCode(client.move({ from: path, to: "here" }))).toBe("outside_workspace");
      expect(await errorCode(client.exec({ argv: ["pwd"], cwd: path }))).toBe("outside_workspace");
    }
    // NUL: the request schema refuses it; a query path (no schema) meets boxd's own check.
    expect(await errorCode(client.read({ path: "a\0b" }))).toBe("invalid_request");
    expect(await errorCode(client.download({ path: "a\0b" }))).toBe("invalid_name");
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("top secret");
  });

  it("refuses symlinks that lead outside, and follows the ones that stay inside", async () => {
    const { client, root } = boxd;
    await symlink("/etc", join(root, "etc"));
    await symlink(join(outside, "secret.txt"), join(root, "secret-link"));
    await symlink("..", join(root, "up"));
    await mkdir(join(root, "real"));
    await writeFile(join(root, "real", "file.txt"), "inside");
    await symlink("real", join(root, "alias"));
    await symlink(join(root, "real", "file.txt"), join(root, "absolute-alias"));

    expect(await errorCode(client.read({ path: "etc/passwd" }))).toBe("outside_workspace");
    expect(await errorCode(client.list({ path: "etc" }))).toBe("outside_workspace");
    expect(await errorCode(client.write({ path: "etc/berth-pwned", content: "x" }))).toBe(
      "outside_workspace",
    );
    expect(await errorCode(client.read({ path: "secret-link" }))).toBe("outside_workspace");
    expect(await errorCode(client.write({ path: "secret-link", content: "x" }))).toBe(
      "outside_workspace",
    );
    expect(await errorCode(client.download({ path: "secret-link" }))).toBe("outside_workspace");
    expect(await errorCode(client.list({ path: "up" }))).toBe("outside_workspace");
    expect(await errorCode(client.exec({ argv: ["pwd"], cwd: "etc" }))).toBe("outside_workspace");
    expect(await errorCode(client.openTerminal({ cwd: "up" }))).toBe("outside_workspace");

    // The links themselves are ordinary entries: stat shows them, remove removes only them.
    expect((await client.stat({ path: "etc" })).entry).toMatchObject({
      type: "symlink",
      target: "/etc",
    });
    await client.remove({ path: "etc" });

    // Inside the workspace, links work like the files they point to.
    expect((await client.read({ path: "alias/file.txt" })).content).toBe("inside");
    expect((await client.read({ path: "absolute-alias" })).content).toBe("inside");
    await client.write({ path: "alias/file.txt", content: "changed" });
    expect(await readFile(join(root, "real", "file.txt"), "utf8")).toBe("changed");
    expect((await client.stat({ path: "alias" })).entry.type).toBe("symlink");
    expect((await client.exec({ argv: ["pwd"], cwd: "alias" })).stdout.trim()).toBe(
      join(root, "real"),
    );

    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("top secret");
  });

  it("removes a tree without following a symlink inside it", async () => {
    const victim = await tempFolder("boxd-victim-");
    await writeFile(join(victim, "keep.txt"), "keep");
    await mkdir(join(boxd.root, "tree", "sub"), { recursive: true });
    await symlink(victim, join(boxd.root, "tree", "sub", "link"));
    await boxd.client.remove({ path: "tree", recursive: true });
    expect(await readdir(victim)).toEqual(["keep.txt"]);
  });

  it("never lets a write or read land outside while a folder is swapped for a symlink", async () => {
    const { client, root } = boxd;
    const racy = join(root, "racy");
    // Swaps racy/ between a real folder and a symlink to `outside`, as fast as bash can.
    const swapper = spawn(
      "bash",
      [
        "-c",
        `end=$((SECONDS + 20)); while [ $SECONDS -lt $end ]; do
           rm -rf "$1"; ln -s "$2" "$1"; rm -f "$1"; mkdir -p "$1"; done`,
        "swapper",
        racy,
        outside,
      ],
      { stdio: "ignore" },
    );
    const outcomes = new Map<string, number>();
    const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
    try {
      const deadline = Date.now() + 4_000;
      let round = 0;
      while (Date.now() < deadline || round < 50) {
        round += 1;
        const attempts = [
          client.write({ path: "racy/pwned.txt", content: `write ${round}` }),
          client.upload({ path: "racy/pwned-upload.txt", body: `upload ${round}` }),
          client.mkdir({ path: "racy/pwned-dir" }),
          client.read({ path: "racy/secret.txt" }).then((read) => {
            expect(read.content).not.toBe("top secret");
          }),
        ];
        for (const result of await Promise.allSettled(attempts)) {
          if (result.status === "fulfilled") count("ok");
          else count((result.reason as { code?: string }).code ?? String(result.reason));
        }
      }
    } finally {
      swapper.kill("SIGKILL");
    }
    // Nothing but the secret is outside, and both sides of the swap were hit.
    expect(await readdir(outside)).toEqual(["secret.txt"]);
    expect(outcomes.get("ok") ?? 0).toBeGreaterThan(0);
    expect(outcomes.get("outside_workspace") ?? 0).toBeGreaterThan(0);
    const allowed = new Set([
      "ok",
      "outside_workspace",
      "not_found",
      "wrong_type",
      "already_exists",
    ]);
    expect([...outcomes.keys()].filter((outcome) => !allowed.has(outcome))).toEqual([]);
  });
});
