import type { Logger } from "pino";
import type { CommandUser } from "../commandUser.ts";
import type { DiskWatch } from "../fs/diskWatch.ts";
import type { WorkspaceRoot } from "../fs/workspaceRoot.ts";
import type { GitContext } from "../git/runGit.ts";
import type { TerminalRegistry } from "../terminals/terminalRegistry.ts";
import type { BoxdIdentity } from "./identity.ts";

/** What every handler may use: built once at start. */
export interface BoxdContext {
  readonly root: WorkspaceRoot;
  /** The workspace's disk limit: every write boxd makes is admitted by it first. */
  readonly disk: DiskWatch;
  readonly terminals: TerminalRegistry;
  readonly git: GitContext;
  /** boxd's environment without BOXD_*, for the processes it starts. */
  readonly baseEnv: Readonly<Record<string, string>>;
  /** Who every command runs as; undefined: as boxd itself. */
  readonly user: CommandUser | undefined;
  /** The instance and token served: read per request, as a warm-pool boxd gets them late. */
  readonly identity: BoxdIdentity;
  /** The uid of the pod boxd runs in (BOXD_POD_UID), which every caller must name (auth.ts). */
  readonly podUid: string | undefined;
  readonly logger: Logger;
}
