import type { TransferProgress } from "@berth/client";
import { SingleBar } from "cli-progress";
import { formatBytes } from "./output.ts";

/** A transfer's progress as people see it: a bar on stderr, drawn only when stderr is a terminal. */
export interface ProgressDisplay {
  update(progress: TransferProgress): void;
  stop(): void;
}

const silent: ProgressDisplay = { update: () => undefined, stop: () => undefined };

export function progressDisplay(label: string): ProgressDisplay {
  // isTTY is undefined, not false, on a pipe: the type says boolean.
  if (!process.stderr.isTTY) return silent;
  let bar: SingleBar | undefined;
  return {
    update({ bytesDone, bytesTotal }) {
      if (bar === undefined) {
        // Without a total (a stream from stdin) there is nothing to fill: bytes only.
        const format =
          bytesTotal === undefined
            ? `${label} {done}`
            : `${label} [{bar}] {percentage}% {done}/{size} ETA {eta_formatted}`;
        bar = new SingleBar({ format, hideCursor: true, stream: process.stderr });
        bar.start(bytesTotal ?? 0, 0, { done: formatBytes(0), size: formatBytes(bytesTotal ?? 0) });
      }
      // A total may change once the bar is up (a capture's estimate gives way to what it sent):
      // the bar is drawn against the newest, so a finished transfer shows full.
      if (bytesTotal !== undefined && bytesTotal !== bar.getTotal()) bar.setTotal(bytesTotal);
      const size = bytesTotal === undefined ? {} : { size: formatBytes(bytesTotal) };
      bar.update(bytesTotal === undefined ? 0 : bytesDone, {
        done: formatBytes(bytesDone),
        ...size,
      });
    },
    stop() {
      bar?.stop();
    },
  };
}
