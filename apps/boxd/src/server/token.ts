import { closeSync, readFileSync } from "node:fs";
import type { BoxdEnv } from "../env.ts";
import { BoxdIdentity } from "./identity.ts";

/** The shortest token (and pool key) boxd serves with, whichever way it came (BOXD_TOKEN's own check). */
const MIN_TOKEN_LENGTH = 32;

type TokenSettings = Pick<BoxdEnv, "BOXD_TOKEN" | "BOXD_TOKEN_FD" | "BOXD_TOKEN_FILE">;
type IdentitySettings = TokenSettings &
  Pick<BoxdEnv, "BOXD_POOL_KEY_FILE" | "BOXD_POD_UID" | "BOXD_INSTANCE_ID">;

/**
 * boxd's identity from its environment, read once at start: bound to BOXD_INSTANCE_ID and the
 * token, or — with BOXD_POOL_KEY_FILE — a warm-pool boxd holding the pool key until its bind.
 * env.ts has checked that exactly one way is set, and that each has the variables it needs.
 */
export function readBoxdIdentity(settings: IdentitySettings): BoxdIdentity {
  const { BOXD_POOL_KEY_FILE: poolKeyFile, BOXD_POD_UID: podUid } = settings;
  if (poolKeyFile !== undefined) {
    if (podUid === undefined) throw new Error("BOXD_POOL_KEY_FILE needs BOXD_POD_UID");
    const poolKey = checkedLength(
      "the pool key in BOXD_POOL_KEY_FILE",
      readSecretFile({
        variable: "BOXD_POOL_KEY_FILE",
        what: "pool key",
        path: poolKeyFile,
      }),
    );
    return BoxdIdentity.pooled({ poolKey, podUid, instanceId: settings.BOXD_INSTANCE_ID });
  }
  if (settings.BOXD_INSTANCE_ID === undefined) throw new Error("BOXD_INSTANCE_ID is not set");
  return BoxdIdentity.bound({
    instanceId: settings.BOXD_INSTANCE_ID,
    token: readBoxdToken(settings),
  });
}

/**
 * boxd's token from whichever of BOXD_TOKEN, BOXD_TOKEN_FD and BOXD_TOKEN_FILE is set (env.ts
 * admits exactly one), read once at start: it is the box's for its whole life. Surrounding
 * whitespace (a file's trailing newline) is dropped, as no header could carry it. A failure
 * names the variable, never the token.
 */
export function readBoxdToken(settings: TokenSettings): string {
  const { variable, token } = readFromSource(settings);
  return checkedLength(`the token in ${variable}`, token);
}

function checkedLength(what: string, secret: string): string {
  if (secret.length < MIN_TOKEN_LENGTH) {
    throw new Error(`${what} is under ${String(MIN_TOKEN_LENGTH)} characters`);
  }
  return secret;
}

function readFromSource(settings: TokenSettings): { variable: string; token: string } {
  if (settings.BOXD_TOKEN_FD !== undefined) {
    return { variable: "BOXD_TOKEN_FD", token: readTokenFrom(settings.BOXD_TOKEN_FD) };
  }
  if (settings.BOXD_TOKEN_FILE !== undefined) {
    return {
      variable: "BOXD_TOKEN_FILE",
      token: readSecretFile({
        variable: "BOXD_TOKEN_FILE",
        what: "token",
        path: settings.BOXD_TOKEN_FILE,
      }),
    };
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
 * A token or pool key from a file (a Kubernetes Secret volume). Its failure says which
 * variable and path, and the system's reason (ENOENT, EACCES…), which never quotes the file's
 * contents.
 */
function readSecretFile(source: {
  readonly variable: string;
  readonly what: string;
  readonly path: string;
}): string {
  try {
    return readFileSync(source.path, "utf8").trim();
  } catch (error) {
    const reason = error instanceof Error && "code" in error ? String(error.code) : "unreadable";
    throw new Error(
      `${source.variable}: cannot read the ${source.what} file ${source.path} (${reason})`,
    );
  }
}
