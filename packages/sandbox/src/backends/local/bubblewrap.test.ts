import { describe, expect, it } from "vitest";
import { bubblewrapArgv, foldersToHide, foldersToKeep } from "./bubblewrap.ts";

const paths = {
  dataDir: "/srv/berth",
  workspace: "/srv/berth/boxes/box-a/workspace",
  hidden: ["/root"],
};

describe("bubblewrapArgv", () => {
  const argv = bubblewrapArgv(paths);
  const at = (...flag: string[]) =>
    argv.findIndex((_, index) => flag.every((part, offset) => argv[index + offset] === part));

  it("unshares pid, ipc and uts, drops every capability, and never dies with its parent", () => {
    for (const flag of ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--new-session"]) {
      expect(argv).toContain(flag);
    }
    expect(at("--cap-drop", "ALL")).toBeGreaterThanOrEqual(0);
    expect(argv).not.toContain("--die-with-parent");
    expect(argv).not.toContain("--unshare-net");
    expect(argv.at(-1)).toBe("--");
  });

  it("mounts the host read-only, then hides the data folder and binds back only the workspace", () => {
    const root = at("--ro-bind", "/", "/");
    const hideHome = at("--tmpfs", "/root");
    const hideData = at("--tmpfs", paths.dataDir);
    const bind = at("--bind", paths.workspace, paths.workspace);
    const readOnly = at("--remount-ro", paths.dataDir);
    expect(root).toBe(argv.indexOf("--ro-bind"));
    expect([root, hideHome, hideData, bind, readOnly].every((index) => index >= 0)).toBe(true);
    expect(root < hideHome && hideHome < hideData && hideData < bind && bind < readOnly).toBe(true);
    for (const fresh of [
      ["--proc", "/proc"],
      ["--dev", "/dev"],
      ["--tmpfs", "/tmp"],
      ["--tmpfs", "/run"],
    ]) {
      expect(at(...fresh)).toBeGreaterThan(root);
    }
    expect(at("--chdir", paths.workspace)).toBeGreaterThanOrEqual(0);
  });
});

describe("foldersToHide", () => {
  it("keeps visible a folder that holds what boxd needs, and refuses a data folder that does", () => {
    const needed = ["/usr/bin/node", "/home/dev/berth/apps/boxd/src/main.ts"];
    expect(foldersToHide({ dataDir: "/srv/berth", requested: ["/home/dev", "/"], needed })).toEqual(
      [],
    );
    expect(() => foldersToHide({ dataDir: "/home/dev/berth", requested: [], needed })).toThrow(
      /boxd needs/,
    );
  });
});

describe("foldersToKeep", () => {
  it("binds back the top folder of each needed file under /tmp or /run, and nothing else", () => {
    expect(
      foldersToKeep([
        "/usr/bin/node",
        "/tmp/clone/apps/boxd/src/main.ts",
        "/tmp/clone/node_modules/tsx/dist/loader.mjs",
        "/run/x/y",
      ]),
    ).toEqual(["/run/x", "/tmp/clone"]);
    expect(foldersToKeep(["/work/main/apps/boxd/src/main.ts"])).toEqual([]);
  });
});
