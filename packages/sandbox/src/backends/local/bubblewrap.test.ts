import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bubblewrapArgv, probeBubblewrap, PROBE_RETRY_MS } from "./bubblewrap.ts";

const paths = {
  workspace: "/srv/berth/boxes/box-a/workspace",
  bundle: "/home/dev/berth/apps/boxd/dist",
  nodePty: "/home/dev/berth/node_modules/.pnpm/node-pty@1.1.0/node_modules/node-pty",
  node: process.execPath,
  etc: "/srv/berth/boxes/box-a/etc",
};

describe("bubblewrapArgv", () => {
  const argv = bubblewrapArgv(paths, { boxUser: true });
  const at = (...flag: string[]) =>
    argv.findIndex((_, index) => flag.every((part, offset) => argv[index + offset] === part));

  it("unshares pid, ipc, uts and the network, drops every capability, never dies with its parent", () => {
    for (const flag of [
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--unshare-net",
      "--new-session",
    ]) {
      expect(argv).toContain(flag);
    }
    expect(at("--cap-drop", "ALL")).toBeGreaterThanOrEqual(0);
    // boxd keeps only what switching its commands' user and owning their files takes.
    const added = argv.flatMap((part, index) => (part === "--cap-add" ? [argv[index + 1]] : []));
    expect(added.sort()).toEqual([
      "CAP_CHOWN",
      "CAP_DAC_OVERRIDE",
      "CAP_FOWNER",
      "CAP_KILL",
      "CAP_SETGID",
      "CAP_SETPCAP",
      "CAP_SETUID",
    ]);
    expect(bubblewrapArgv(paths, { boxUser: false })).not.toContain("--cap-add");
    expect(argv).not.toContain("--die-with-parent");
    expect(argv.at(-1)).toBe("--");
  });

  it("builds a root of its own: never the host's /, the data folder or the checkout", () => {
    expect(at("--ro-bind", "/", "/")).toBe(-1);
    // Every host path bound is a system folder, an allowed /etc entry, or one of the box's own.
    const sources = argv.flatMap((part, index) =>
      ["--ro-bind", "--ro-bind-try", "--bind"].includes(part) ? [argv[index + 1] ?? ""] : [],
    );
    for (const source of sources) {
      const allowed =
        /^\/(usr|bin|sbin|lib|lib32|lib64|libx32)(\/|$)/.test(source) ||
        (source.startsWith("/etc/") && !/shadow|ssh|sudoers|ssl\/private/.test(source)) ||
        [paths.workspace, paths.bundle, paths.nodePty].includes(source) ||
        source.startsWith(`${paths.etc}/`);
      expect(allowed, source).toBe(true);
    }
    expect(at("--bind", paths.workspace, "/workspace")).toBeGreaterThan(0);
    expect(at("--ro-bind", paths.bundle, "/opt/berth/boxd")).toBeGreaterThan(0);
    expect(at("--ro-bind", paths.nodePty, "/opt/berth/node_modules/node-pty")).toBeGreaterThan(0);
    expect(at("--ro-bind", `${paths.etc}/resolv.conf`, "/etc/resolv.conf")).toBeGreaterThan(0);
    for (const fresh of ["/tmp", "/var/tmp", "/run", "/home"])
      expect(at("--tmpfs", fresh)).toBeGreaterThan(0);
    // The root itself turns read-only after every mount is made.
    expect(at("--remount-ro", "/")).toBeGreaterThan(at("--bind", paths.workspace, "/workspace"));
    expect(at("--chdir", "/workspace")).toBeGreaterThan(0);
  });
});

describe("probeBubblewrap", () => {
  it("keeps a failure for a minute, then probes again: bubblewrap installed meanwhile is found", async () => {
    const folder = await mkdtemp(join(tmpdir(), "berth-bwrap-"));
    try {
      const bwrap = join(folder, "bwrap");
      const start = 1_000_000;
      expect((await probeBubblewrap(bwrap, start)).ok).toBe(false);
      // Installed now: a wrapper that runs the machine's bwrap.
      await writeFile(bwrap, '#!/bin/sh\nexec bwrap "$@"\n', { mode: 0o755 });
      expect((await probeBubblewrap(bwrap, start + PROBE_RETRY_MS - 1)).ok).toBe(false);
      expect((await probeBubblewrap(bwrap, start + PROBE_RETRY_MS)).ok).toBe(true);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
