import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { isInside } from "./paths.ts";

// What a bubblewrap box sees of the filesystem: a root of its own (bubblewrap's empty tmpfs, made
// read-only at the end) holding only the system's programs and libraries, a curated /etc, its
// workspace, private temporary folders, and boxd's bundle. Nothing else of the host: not the
// checkout, not the data folder (other boxes, the embedded database, the secret), not /root.

/** Where a box's own folders are, inside the box. */
export const boxMounts = {
  workspace: "/workspace",
  /** boxd's bundle; node-pty beside it in /opt/berth/node_modules, where its require finds it. */
  bundle: "/opt/berth/boxd",
  nodeModules: "/opt/berth/node_modules",
  home: "/home/box",
} as const;

/** The system's programs and libraries, read-only (a symlink, as merged /usr makes them, stays one). */
const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"] as const;

/**
 * The host /etc entries a box gets, read-only: what programs read to run (the dynamic linker's
 * cache, certificates, time zone, shell and git defaults, service names). Not the password and
 * group databases (the box gets its own), never shadow, ssh host keys, sudoers, or the
 * configuration of the host's services.
 */
const ETC_ALLOWED = [
  "alternatives",
  "bash.bashrc",
  "ca-certificates",
  "ca-certificates.conf",
  "debian_version",
  "gitconfig",
  "host.conf",
  "inputrc",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "locale.alias",
  "localtime",
  "magic",
  "magic.mime",
  "mime.types",
  "nsswitch.conf",
  "os-release",
  "profile",
  "profile.d",
  "protocols",
  "python3",
  "services",
  "ssl/certs",
  "ssl/openssl.cnf",
  "terminfo",
  "timezone",
] as const;

/** Every folder a mount below needs, parents first. */
const PARENT_FOLDERS = [
  "/etc",
  "/etc/ssl",
  "/var",
  "/opt",
  "/opt/berth",
  "/opt/berth/node_modules",
];

/** The /etc files Berth writes for each box (in its folder on the host), bound over the allowlist. */
const GENERATED_ETC = ["passwd", "group", "hosts", "hostname", "resolv.conf"] as const;

export interface BoxRootPaths {
  /** The box's workspace on the host: bound writable at /workspace. */
  readonly workspace: string;
  /** boxd's built bundle (a folder): bound read-only at /opt/berth/boxd. */
  readonly bundle: string;
  /** node-pty's package folder, which the bundle loads from its node_modules. */
  readonly nodePty: string | undefined;
  /** The node binary boxd runs on (bound at its own path when outside the system folders). */
  readonly node: string;
  /** This box's generated /etc files on the host (writeBoxEtc). */
  readonly etc: string;
}

/** The bind arguments for a system folder: a symlink stays a symlink, a folder is bound read-only. */
function systemFolder(path: string): string[] {
  if (!existsSync(path)) return [];
  const stat = lstatSync(path);
  if (stat.isSymbolicLink()) return ["--symlink", readlinkSync(path), path];
  return ["--ro-bind", path, path];
}

/**
 * bwrap's filesystem arguments for one box. The root starts empty: only what is listed appears,
 * and it is remounted read-only last, so the box writes only its workspace and its temporary
 * folders.
 */
export function boxRootArgv(paths: BoxRootPaths): string[] {
  const node = realpathSync(paths.node);
  const nodeOutsideSystem = !SYSTEM_FOLDERS.some((folder) => isInside(node, folder));
  return [
    // bwrap makes a missing parent of a mount 0700 (root's alone): the folders that hold the
    // box's mounts are made first, readable by its user.
    ...PARENT_FOLDERS.flatMap((folder) => ["--perms", "0755", "--dir", folder]),
    ...SYSTEM_FOLDERS.flatMap(systemFolder),
    ...(nodeOutsideSystem ? ["--ro-bind", dirname(node), dirname(node)] : []),
    ...ETC_ALLOWED.flatMap((entry) => ["--ro-bind-try", `/etc/${entry}`, `/etc/${entry}`]),
    ...GENERATED_ETC.flatMap((file) => ["--ro-bind", join(paths.etc, file), `/etc/${file}`]),
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    // Temporary folders as a system has them (1777: every user, each deleting only its own),
    // and a home the box's user can write although bwrap makes it as root.
    ...["--perms", "1777", "--tmpfs", "/tmp"],
    ...["--perms", "1777", "--tmpfs", "/var/tmp"],
    "--tmpfs",
    "/run",
    "--tmpfs",
    "/home",
    ...["--perms", "1777", "--dir", boxMounts.home],
    "--ro-bind",
    paths.bundle,
    boxMounts.bundle,
    ...(paths.nodePty === undefined
      ? []
      : ["--ro-bind", paths.nodePty, `${boxMounts.nodeModules}/node-pty`]),
    "--bind",
    paths.workspace,
    boxMounts.workspace,
    "--remount-ro",
    "/",
    "--chdir",
    boxMounts.workspace,
  ];
}

/**
 * Writes the box's own /etc files: its users (root, whom boxd runs as, and the box's own user,
 * whom its commands run as, at home in /home/box), localhost names, and a resolver that answers
 * only with egress (slirp4netns's DNS forwarder at 10.0.2.3); without a network there is nothing
 * to resolve.
 */
export async function writeBoxEtc(options: {
  readonly folder: string;
  readonly egress: boolean;
  readonly user: { readonly uid: number; readonly gid: number } | null;
}): Promise<void> {
  await mkdir(options.folder, { recursive: true, mode: 0o755 });
  const { user } = options;
  const box =
    user === null
      ? ""
      : `box:x:${String(user.uid)}:${String(user.gid)}:box:${boxMounts.home}:/bin/bash\n`;
  const files: Record<(typeof GENERATED_ETC)[number], string> = {
    passwd: `root:x:0:0:root:${user === null ? boxMounts.home : "/root"}:/bin/bash\n${box}nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`,
    group: `root:x:0:\n${user === null ? "" : `box:x:${String(user.gid)}:\n`}nogroup:x:65534:\n`,
    hosts: "127.0.0.1\tlocalhost berth-box\n::1\tlocalhost ip6-localhost ip6-loopback\n",
    hostname: "berth-box\n",
    "resolv.conf": options.egress ? "nameserver 10.0.2.3\n" : "",
  };
  for (const [name, text] of Object.entries(files))
    await writeFile(join(options.folder, name), text, { mode: 0o644 });
}
