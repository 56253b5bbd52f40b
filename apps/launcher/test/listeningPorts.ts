import { readdir, readFile, readlink } from "node:fs/promises";

/** TCP state 0A is LISTEN in /proc/net/tcp{,6}. */
const LISTEN = "0A";

/**
 * The TCP ports a process listens on, read from procfs: its sockets' inodes (its fds' links
 * read `socket:[inode]`) matched against the kernel's table of listening sockets.
 */
export async function listeningTcpPorts(pid: number): Promise<number[]> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${String(pid)}/fd`)) {
    const target = await readlink(`/proc/${String(pid)}/fd/${fd}`).catch(() => "");
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode !== undefined) inodes.add(inode);
  }
  const ports: number[] = [];
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    const lines = (await readFile(table, "utf8").catch(() => "")).split("\n").slice(1);
    for (const line of lines) {
      const fields = line.trim().split(/\s+/);
      const [, local = "", , state, , , , , , inode = ""] = fields;
      if (state === LISTEN && inodes.has(inode))
        ports.push(Number.parseInt(local.split(":").at(-1) ?? "", 16));
    }
  }
  return ports;
}
