import { Progress } from "@berth/ui/progress";
import { useId } from "react";
import { formatBytes } from "./paths.ts";

/** One upload or download: stays shown when done, so its outcome can be read afterwards. */
export interface Transfer {
  readonly direction: "upload" | "download";
  readonly name: string;
  readonly loaded: number;
  readonly total: number | null;
  readonly done: boolean;
}

export function TransferProgress({ transfer }: { transfer: Transfer }) {
  const labelId = useId();
  const { direction, name, loaded, total, done } = transfer;
  const percent = total === null || total === 0 ? (done ? 100 : null) : (loaded / total) * 100;
  const verb =
    direction === "upload"
      ? done
        ? "Uploaded"
        : "Uploading"
      : done
        ? "Downloaded"
        : "Downloading";
  return (
    <div className="flex flex-col gap-1.5" data-testid="transfer">
      <div className="flex items-baseline justify-between gap-3 text-xs">
        <span id={labelId} className="truncate font-medium">
          {verb} {name}
        </span>
        <span className="shrink-0 text-muted-foreground tabular-nums">
          {formatBytes(loaded)}
          {total === null ? "" : ` of ${formatBytes(total)}`}
        </span>
      </div>
      <Progress value={percent} aria-labelledby={labelId} />
    </div>
  );
}
