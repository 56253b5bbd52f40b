import { access, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, startBoxd, tempFolder, type BoxdProcess } from "./boxdProcess.ts";

let boxd: BoxdProcess;
beforeAll(async () => {
  boxd = await startBoxd();
  const init = await boxd.client.exec({ argv: ["git", "init", "-q", "-b", "main"] });
  expect(init.exitCode).toBe(0);
});
afterAll(async () => {
  await boxd.stop();
});

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe("git", () => {
  it("reports status, stages, commits, diffs, logs, shows and switches branches", async () => {
    const { client } = boxd;
    expect(await client.gitLog()).toEqual({ commits: [] });
    await client.write({ path: "a.txt", content: "one\n" });
    await client.write({ path: "odd\nname ü.txt", content: "x\n" });

    const untracked = await client.gitStatus();
    expect(untracked.branch).toMatchObject({ oid: null, head: "main" });
    expect(untracked.entries).toEqual([
      { kind: "untracked", path: "a.txt", index: "?", worktree: "?" },
      { kind: "untracked", path: "odd\nname ü.txt", index: "?", worktree: "?" },
    ]);

    await client.gitAdd({ paths: ["a.txt", "odd\nname ü.txt"] });
    const staged = await client.gitStatus();
    expect(staged.entries.map((entry) => [entry.kind, entry.index, entry.path])).toEqual([
      ["changed", "A", "a.txt"],
      ["changed", "A", "odd\nname ü.txt"],
    ]);

    const first = await client.gitCommit({
      message: "first commit",
      author: { name: "Ada", email: "ada@example.com" },
    });
    expect(first.oid).toMatch(/^[0-9a-f]{40}$/);
    const log = await client.gitLog();
    expect(log.commits).toEqual([
      expect.objectContaining({
        oid: first.oid,
        parents: [],
        authorName: "Ada",
        authorEmail: "ada@example.com",
        subject: "first commit",
      }),
    ]);

    await client.write({ path: "a.txt", content: "two\n" });
    const diff = await client.gitDiff();
    expect(diff.truncated).toBe(false);
    expect(diff.text).toContain("-one\n+two\n");
    expect((await client.gitDiff({ staged: true })).text).toBe("");
    expect((await client.gitDiff({ ref: "HEAD", paths: ["a.txt"] })).text).toContain("+two");

    await client.exec({ argv: ["git", "mv", "odd\nname ü.txt", "renamed.txt"] });
    const moved = await client.gitStatus();
    expect(moved.entries).toContainEqual({
      kind: "renamed",
      path: "renamed.txt",
      origPath: "odd\nname ü.txt",
      index: "R",
      worktree: ".",
    });

    const shown = await client.gitShow({ ref: "HEAD" });
    expect(shown.text).toContain("first commit");

    await client.gitAdd({ paths: ["a.txt"] });
    await client.gitCommit({ message: "second" });
    await client.gitCheckout({ branch: "feature/x", create: true });
    const branches = await client.gitBranches();
    expect(branches.current).toBe("feature/x");
    expect(branches.branches.map((branch) => [branch.name, branch.current])).toEqual([
      ["feature/x", true],
      ["main", false],
    ]);
    await client.gitCheckout({ branch: "main" });
    expect((await client.gitStatus()).branch.head).toBe("main");
    expect((await client.gitLog({ maxCount: 1 })).commits[0]?.subject).toBe("second");
  });

  it("never reads a file, branch or ref name as an option", async () => {
    const { client, root } = boxd;
    const markers = await tempFolder("boxd-marker-");
    const marker = join(markers, "injected");

    // As paths they stay paths: `git diff --output=<file>` would have created the marker.
    for (const name of [`--output=${marker}`, "-c x=y", "--upload-pack=touch injected"]) {
      await client.gitDiff({ paths: [name] });
      await client.gitDiff({ ref: "HEAD", paths: [name] });
    }
    // A file really named like an option is staged as that file.
    await writeFile(join(root, "--output=x"), "data\n");
    await client.gitAdd({ paths: ["--output=x"] });
    expect((await client.gitStatus()).entries).toContainEqual(
      expect.objectContaining({ path: "--output=x", index: "A" }),
    );
    expect(await exists(join(root, "x"))).toBe(false);

    // As refs and branches they are refused outright.
    for (const ref of [`--output=${marker}`, "-c", "--upload-pack=touch injected", "-"]) {
      expect(await errorCode(client.gitLog({ ref }))).toBe("invalid_name");
      expect(await errorCode(client.gitShow({ ref }))).toBe("invalid_name");
      expect(await errorCode(client.gitDiff({ ref }))).toBe("invalid_name");
      expect(await errorCode(client.gitCheckout({ branch: ref }))).toBe("invalid_name");
      expect(await errorCode(client.gitCheckout({ branch: ref, create: true }))).toBe(
        "invalid_name",
      );
    }
    for (const branch of ["has space", "a..b", "@{-1}", "ends.lock"]) {
      expect(await errorCode(client.gitCheckout({ branch, create: true }))).toBe("invalid_name");
    }
    // NUL cannot be an argument at all: the request schema refuses it before git is asked.
    expect(await errorCode(client.gitCheckout({ branch: "x\0y", create: true }))).toBe(
      "invalid_request",
    );
    // Pathspec magic is literal: this matches no file rather than every file.
    expect(await errorCode(client.gitAdd({ paths: [":(glob)*"] }))).toBe("git_failed");

    expect(await exists(marker)).toBe(false);
    expect(await exists(join(root, "injected"))).toBe(false);
  });

  it("keeps git paths inside the workspace", async () => {
    expect(await errorCode(boxd.client.gitAdd({ paths: ["../outside"] }))).toBe(
      "outside_workspace",
    );
    expect(await errorCode(boxd.client.gitDiff({ paths: ["/etc/passwd"] }))).toBe(
      "outside_workspace",
    );
  });
});
