import type { AppRouter } from "@berth/api";
import type { inferRouterOutputs } from "@trpc/server";
import { formatTime } from "../../lib/formatTime.ts";
import type { MachineState } from "../stateVariant.ts";

type Outputs = inferRouterOutputs<AppRouter>;

/** A session and its box (none until first used), as the two list queries return them. */
export interface SessionWithBox {
  readonly session: Outputs["sessions"]["list"][number];
  readonly box: Outputs["machines"]["list"][number] | undefined;
}

/**
 * One overview row as it travels from the server's render to the browser's filter. An object
 * rather than a positional tuple: its repeated keys cost little once the page is compressed,
 * and every reader names the field it uses.
 */
export interface OverviewRow {
  readonly id: string;
  readonly title: string;
  readonly state: MachineState;
  /** "workspace / archive" generations, or "—" without a box. */
  readonly generations: string;
  readonly archive: "complete" | "behind" | null;
  readonly backend: string;
  /** Already formatted (UTC), so server and browser write the same text. */
  readonly created: string;
}

export function overviewRow({ session, box }: SessionWithBox): OverviewRow {
  return {
    id: session.id,
    title: session.title,
    state: box?.state ?? "cold",
    generations:
      box === undefined
        ? "—"
        : `${String(box.workspaceGeneration)} / ${box.archiveGeneration === null ? "—" : String(box.archiveGeneration)}`,
    archive: box === undefined ? null : box.archiveComplete ? "complete" : "behind",
    backend: session.backend,
    created: formatTime(session.createdAt),
  };
}
