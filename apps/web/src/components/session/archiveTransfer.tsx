import { Progress } from "@berth/ui/progress";
import { useId } from "react";
import { formatBytes } from "./files/paths.ts";

/** The session's capture or restore under way, or its last, as events.session sends it. */
export interface ArchiveTransferView {
  readonly operation: "capture" | "restore";
  readonly phase: "capturing" | "checking" | "hydrating" | "failed";
  readonly bytesDone: number;
  /** Unknown until the box sends its estimate (capture) or the store its size (restore). */
  readonly bytesTotal: number | null;
}

/** What the transfer is doing, in words; a failed one says what was left as it was. */
function describe(transfer: ArchiveTransferView): { title: string; detail?: string } {
  const done = transfer.bytesTotal !== null && transfer.bytesDone >= transfer.bytesTotal;
  switch (transfer.phase) {
    case "capturing":
      return { title: done ? "Captured the workspace" : "Capturing the workspace" };
    case "checking":
      return { title: "Checking the archive" };
    case "hydrating":
      return { title: done ? "Restored the workspace" : "Restoring the workspace" };
    case "failed":
      return transfer.operation === "capture"
        ? {
            title: "Capture failed",
            detail:
              "No archive was made; the box keeps its workspace, and the next capture starts over.",
          }
        : {
            title: "Restore failed",
            detail:
              "The archive was not restored; the machine above shows whether it is retried or blocked.",
          };
  }
}

/** A bar for the transfer; a failed one stops, red, where it broke. */
export function ArchiveTransfer({ transfer }: { transfer: ArchiveTransferView }) {
  const labelId = useId();
  const { bytesDone, bytesTotal } = transfer;
  const failed = transfer.phase === "failed";
  const percent = bytesTotal === null || bytesTotal === 0 ? null : (bytesDone / bytesTotal) * 100;
  const { title, detail } = describe(transfer);
  return (
    <div
      className="mt-4 flex flex-col gap-1.5"
      data-testid="archive-transfer"
      data-phase={transfer.phase}
    >
      <div className="flex items-baseline justify-between gap-3 text-xs">
        <span id={labelId} className={failed ? "font-medium text-destructive" : "font-medium"}>
          {title}
        </span>
        <span className="shrink-0 text-muted-foreground tabular-nums">
          {failed ? "at " : ""}
          {formatBytes(bytesDone)}
          {bytesTotal === null ? "" : ` of ${formatBytes(bytesTotal)}`}
        </span>
      </div>
      <Progress
        value={failed && percent === null ? 0 : percent}
        aria-labelledby={labelId}
        className={failed ? "[&>div]:bg-destructive" : undefined}
      />
      {detail === undefined ? null : <p className="text-xs text-muted-foreground">{detail}</p>}
    </div>
  );
}
