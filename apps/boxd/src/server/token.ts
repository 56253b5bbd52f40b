import { closeSync, readFileSync } from "node:fs";
import type { BoxdEnv } from "../env.ts";

/** The shortest token boxd serves with, whichever way it came (BOXD_TOKEN's own check). */
const MIN_TOKEN_LENGTH = 32;

type TokenSettings = Pick<BoxdEnv, "BOXD_TOKEN" | "BOXD_TOKEN_FD" | "BOXD_TOKEN_FILE">;

/**
 * boxd's token from whichever of BOXD_TOKEN, BOXD_TOKEN_FD and BOXD_TOKEN_FILE is set (env.ts
 * admits exactly one), read once at start: it is the box's for its whole life. Surrounding
 * whitespace (a file's trailing newline) is dropped, as no header could carry it. A failure
 * names the variable, never the token.
 */
export function readBoxdToken(settings: TokenSettings): string {
  const { variable, token } = readFromSource(settings);
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new Error(`the token in ${variable} is under ${String(MIN_TOKEN_LENGTH)} characters`);
  }
  return token;
}

function readFromSource(settings: TokenSettings): { variable: string; token: string } {
  if (settings.BOXD_TOKEN_FD !== undefined) {
    return { variable: "BOXD_TOKEN_FD", token: readTokenFrom(settings.BOXD_TOKEN_FD) };
  }
  if (settings.BOXD_TOKEN_FILE !== undefined) {
    return { variable: "BOXD_TOKEN_FILE", token: readTokenFile(settings.BOXD_TOKEN_FILE) };
  }
  return { variable: "BOXD_TOKEN", token: settings.BOXD_TOKEN ?? "" };
}

/**
 * The token from a descriptor (a pipe its launcher wrote and closed), read to its end, then
 * closed: after this no file, environment or descriptor of boxd's holds it.
 */
function readTokenFrom(fd: number): string {
  try {
    return readFileSync(fd, "utf8").trim();
  } finally {
    closeSync(fd);
  }
}

/**
 * The token from a file (a Kubernetes Secret volume). Its failure says which variable and
 * path, and the system's reason (ENOENT, EACCES…), which never quotes the file's contents.
 */
function readTokenFile(path: string): string {
  try {
    return readFileSync(path, "utf8").trim();
  } catch (error) {
    const reason = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    throw new Error(`BOXD_TOKEN_FILE: cannot read the token file ${path} (${reason})`);
  }
}
