import type { GitStatus, GitStatusEntry } from "@berth/box-protocol";

/**
 * Parses `git status --porcelain=v2 --branch -z`. Records are NUL-terminated; a rename or copy
 * ("2") is followed by one more record holding its original path. Paths are raw (no quoting
 * under -z), so newlines and spaces in names come through unchanged.
 */
export function parsePorcelainV2(output: string): GitStatus {
  const records = output.split("\0");
  const branch: GitStatus["branch"] = { oid: null, head: null };
  const entries: GitStatusEntry[] = [];
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index] ?? "";
    if (record === "") continue;
    if (record.startsWith("# ")) {
      readHeader(record.slice(2), branch);
      continue;
    }
    const fields = record.split(" ");
    const xy = fields[1] ?? "..";
    const states = { index: xy.charAt(0), worktree: xy.charAt(1) };
    switch (record.charAt(0)) {
      case "1":
        entries.push({ kind: "changed", path: fields.slice(8).join(" "), ...states });
        break;
      case "2":
        index += 1;
        entries.push({
          kind: "renamed",
          path: fields.slice(9).join(" "),
          origPath: records[index] ?? "",
          ...states,
        });
        break;
      case "u":
        entries.push({ kind: "unmerged", path: fields.slice(10).join(" "), ...states });
        break;
      case "?":
        entries.push({ kind: "untracked", path: record.slice(2), index: "?", worktree: "?" });
        break;
      case "!":
        entries.push({ kind: "ignored", path: record.slice(2), index: "!", worktree: "!" });
        break;
      default:
        break;
    }
  }
  return { branch, entries };
}

function readHeader(header: string, branch: GitStatus["branch"]): void {
  const space = header.indexOf(" ");
  const key = header.slice(0, space);
  const value = header.slice(space + 1);
  if (key === "branch.oid") branch.oid = value === "(initial)" ? null : value;
  else if (key === "branch.head") branch.head = value === "(detached)" ? null : value;
  else if (key === "branch.upstream") branch.upstream = value;
  else if (key === "branch.ab") {
    const match = /^\+(\d+) -(\d+)$/.exec(value);
    if (match !== null) {
      branch.ahead = Number(match[1]);
      branch.behind = Number(match[2]);
    }
  }
}
