import type { SessionConnection } from "./context.ts";
import { setTimeout as sleep } from "node:timers/promises";
import type { TransferProgress } from "@berth/client";
import { progressDisplay, type ProgressDisplay } from "./progress.ts";

/** How long to wait for the session's event stream before starting without a bar. */
const BASELINE_WAIT_MS = 2_000;
/** How long the stream may lag the operation's answer before its last figure is given up. */
const LAST_FIGURE_WAIT_MS = 1_000;

/**
 * Runs a capture or a restore with its progress on stderr (only when stderr is a terminal).
 * The API reports progress on `events.session` as `transfer` snapshots, sent first with the
 * lease's last transfer and again on every change: the one sent before `run` starts is the
 * previous transfer's, so only later ones are drawn. Progress is advice: a stream that fails
 * leaves the bar out, never the operation.
 */
export async function withArchiveProgress<T>(
  session: SessionConnection,
  operation: "capture" | "restore",
  run: () => Promise<T>,
): Promise<T> {
  if (!process.stderr.isTTY) return run();
  let started = false;
  let baselineAt: number | undefined;
  let display: { phase: TransferPhase; bar: ProgressDisplay; last: TransferProgress } | undefined;
  let sawLastFigure: () => void = () => undefined;
  const lastFigureSeen = new Promise<void>((resolve) => (sawLastFigure = resolve));
  let caughtUp: () => void = () => undefined;
  const baseline = new Promise<void>((resolve) => {
    caughtUp = resolve;
    setTimeout(resolve, BASELINE_WAIT_MS).unref();
  });
  const subscription = session.client.events.session.subscribe(session.scope, {
    onData: (item) => {
      if (!("kind" in item)) return;
      if (item.kind === "generations") {
        caughtUp();
        return;
      }
      // Where the session's calls go (a swap moves it): no part of an archive's progress.
      if (item.kind === "route") return;
      const at = item.at.getTime();
      if (!started) {
        baselineAt = at;
        return;
      }
      if (item.operation !== operation || at === baselineAt) return;
      const figure = { bytesDone: item.bytesDone, bytesTotal: item.bytesTotal ?? undefined };
      if (display?.phase !== item.phase) {
        display?.bar.stop();
        display = {
          phase: item.phase,
          bar: progressDisplay(phaseLabel(operation, item.phase)),
          last: figure,
        };
      }
      display.last = figure;
      display.bar.update(figure);
      if (endsTransfer(operation, item)) sawLastFigure();
    },
    onError: () => {
      caughtUp();
    },
  });
  try {
    await baseline;
    started = true;
    const result = await run();
    // Done: the stream may lag the answer, so wait (a moment at most) for the transfer's last
    // figure, not merely any figure: one drawn mid-transfer says nothing of the stream having
    // caught up. Then fill the bar (a capture's total was the box's estimate; what it sent is
    // the whole). A failed transfer's bar stays where it broke.
    await Promise.race([lastFigureSeen, sleep(LAST_FIGURE_WAIT_MS)]);
    if (display !== undefined && display.phase !== "failed") {
      const { bytesDone } = display.last;
      display.bar.update({ bytesDone, bytesTotal: bytesDone });
    }
    return result;
  } finally {
    subscription.unsubscribe();
    display?.bar.stop();
  }
}

type TransferPhase = "capturing" | "checking" | "hydrating" | "failed";

/**
 * Whether a figure is its transfer's last: a failure, or the operation's final phase complete
 * (a capture's last figure is what it sent over what it sent; a restore checks, then hydrates).
 */
function endsTransfer(
  operation: "capture" | "restore",
  figure: { phase: TransferPhase; bytesDone: number; bytesTotal: number | null },
): boolean {
  if (figure.phase === "failed") return true;
  const finalPhase = operation === "capture" ? "capturing" : "hydrating";
  return (
    figure.phase === finalPhase &&
    figure.bytesTotal !== null &&
    figure.bytesDone >= figure.bytesTotal
  );
}

/** The bar's label: the phase under way, or where a failed transfer stopped. */
function phaseLabel(operation: "capture" | "restore", phase: TransferPhase): string {
  switch (phase) {
    case "capturing":
    case "checking":
    case "hydrating":
      return `${operation}: ${phase}`;
    case "failed":
      return `${operation}: failed at`;
  }
}
