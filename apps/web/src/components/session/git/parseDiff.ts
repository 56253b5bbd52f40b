/** One line of a unified diff as shown: its kind and, inside a hunk, its old and new numbers. */
export interface DiffLine {
  readonly kind: "added" | "removed" | "context" | "hunk" | "meta";
  readonly text: string;
  readonly oldNumber?: number;
  readonly newNumber?: number;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/**
 * Reads git's unified diff line by line. Numbers come from each hunk's header and are counted
 * forward, so a line outside a hunk (file headers, "\ No newline") carries none; a "+++"/"---"
 * only counts as a file header before the first hunk of its file, where it cannot be content.
 */
export function parseDiff(text: string): DiffLine[] {
  if (text === "") return [];
  const lines: DiffLine[] = [];
  let oldNumber = 0;
  let newNumber = 0;
  let inHunk = false;
  for (const line of text.replace(/\n$/, "").split("\n")) {
    const hunk = HUNK.exec(line);
    if (hunk !== null) {
      oldNumber = Number(hunk[1]);
      newNumber = Number(hunk[2]);
      inHunk = true;
      lines.push({ kind: "hunk", text: line });
    } else if (line.startsWith("diff --git ")) {
      inHunk = false;
      lines.push({ kind: "meta", text: line });
    } else if (!inHunk || line.startsWith("\\")) {
      lines.push({ kind: "meta", text: line });
    } else if (line.startsWith("+")) {
      lines.push({ kind: "added", text: line, newNumber: newNumber++ });
    } else if (line.startsWith("-")) {
      lines.push({ kind: "removed", text: line, oldNumber: oldNumber++ });
    } else {
      lines.push({ kind: "context", text: line, oldNumber: oldNumber++, newNumber: newNumber++ });
    }
  }
  return lines;
}
