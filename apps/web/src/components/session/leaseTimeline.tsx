import type { AppRouter } from "@berth/api";
import { Skeleton } from "@berth/ui/skeleton";
import {
  Table,
  TableBody,
  TableCaption,
  TableCell,
  TableHead,
  TableHeader,
  TableRow,
} from "@berth/ui/table";
import type { inferRouterOutputs } from "@trpc/server";
import { formatTime } from "../../lib/formatTime.ts";
import { EmptyState } from "../emptyState.tsx";
import { ErrorAlert } from "../errorAlert.tsx";
import { LoadingRows } from "../loadingRows.tsx";

type Timeline = inferRouterOutputs<AppRouter>["leases"]["timeline"];
type LeaseEvent = Timeline["events"][number];

/** One lane per liveness, top to bottom in the order a box lives them. */
const lanes = ["cold", "warming", "warm", "draining"] as const;
const width = 1000;
const laneHeight = 36;
const left = 90;
const right = 40;

function laneOf(state: string): number {
  const index = lanes.indexOf(state as (typeof lanes)[number]);
  return index === -1 ? 0 : index;
}

/**
 * Theme colours (see tooling/tailwind), so the chart follows light and dark mode; a draining
 * box is a hollow amber ring, on its way out.
 */
const pointColour: Record<(typeof lanes)[number], string> = {
  cold: "fill-muted-foreground stroke-card",
  warming: "fill-warning stroke-card",
  warm: "fill-success stroke-card",
  draining: "fill-card stroke-warning",
};

function describe(event: LeaseEvent): string {
  const reason = event.reason === null ? "" : ` (${event.reason})`;
  return `${event.transition}: ${event.fromState ?? "—"} → ${event.toState} at epoch ${String(event.epochAfter)}, by ${event.actor}${reason}, ${formatTime(event.at)}`;
}

/**
 * The lease's transitions over time: x is time, one lane per liveness, each event a point on
 * the lane it entered, labelled with its epoch (actor and reason on hover); the same events as
 * a table beside it, for screen readers and for copying.
 */
export function LeaseTimeline({
  query,
}: {
  query: { isPending: boolean; error: unknown; data: Timeline | undefined };
}) {
  if (query.isPending) {
    return (
      <div className="flex flex-col gap-4">
        <Skeleton className="h-36 w-full rounded-lg" />
        <LoadingRows label="Loading the timeline…" columns={6} />
      </div>
    );
  }
  if (query.data === undefined)
    return <ErrorAlert error={query.error} prefix="Could not load the timeline" />;
  const { events } = query.data;
  if (events.length === 0) {
    return (
      <EmptyState
        title="No lease yet."
        next={
          <>
            The box starts on the session&apos;s first use: read or write a file in it, or run a
            command (<code>berth ls -s {"<session id>"}</code>), and each transition appears here as
            it happens.
          </>
        }
      />
    );
  }
  const first = events[0]?.at.getTime() ?? 0;
  const last = events.at(-1)?.at.getTime() ?? first;
  const span = Math.max(last - first, 1);
  const x = (at: Date) => left + ((at.getTime() - first) / span) * (width - left - right);
  const y = (state: string) => laneHeight * laneOf(state) + laneHeight / 2;
  const height = laneHeight * lanes.length;
  // A step line: along the lane until the next transition, then over to the lane it entered.
  const path = events
    .map((event, i) =>
      i === 0
        ? `M${x(event.at).toFixed(1)} ${String(y(event.toState))}`
        : `H${x(event.at).toFixed(1)} V${String(y(event.toState))}`,
    )
    .join(" ");
  return (
    <div className="flex flex-col gap-4">
      <div className="rounded-lg border border-border bg-background p-3">
        <svg
          className="h-auto w-full text-foreground"
          viewBox={`0 0 ${String(width)} ${String(height)}`}
          role="img"
          aria-label={`Lease timeline: ${String(events.length)} transitions, now ${events.at(-1)?.toState ?? ""} at epoch ${String(events.at(-1)?.epochAfter ?? 0)}`}
        >
          {lanes.map((lane, i) => (
            <g key={lane}>
              {i % 2 === 0 ? (
                <rect
                  x={0}
                  y={laneHeight * i}
                  width={width}
                  height={laneHeight}
                  className="fill-muted/60"
                />
              ) : null}
              <line
                x1={left}
                x2={width - right}
                y1={y(lane)}
                y2={y(lane)}
                className="stroke-border"
                strokeDasharray="4 4"
              />
              <text
                x={8}
                y={laneHeight * i + laneHeight / 2 + 4}
                className="fill-muted-foreground text-xs"
              >
                {lane}
              </text>
            </g>
          ))}
          <path
            d={path}
            className="fill-none stroke-primary"
            strokeWidth={2}
            strokeLinejoin="round"
          />
          {events.map((event) => (
            <g key={String(event.id)} data-testid="timeline-point">
              <circle
                cx={x(event.at)}
                cy={y(event.toState)}
                r={6}
                className={pointColour[lanes[laneOf(event.toState)] ?? "cold"]}
                strokeWidth={2}
              >
                <title>{describe(event)}</title>
              </circle>
              <text
                x={x(event.at) + 7}
                y={y(event.toState) - 9}
                className="fill-foreground text-xs font-medium"
              >
                e{event.epochAfter}
              </text>
            </g>
          ))}
        </svg>
      </div>
      <Table>
        <TableCaption>Lease events, oldest first</TableCaption>
        <TableHeader>
          <TableRow className="hover:bg-transparent">
            <TableHead scope="col">Time</TableHead>
            <TableHead scope="col">Transition</TableHead>
            <TableHead scope="col">From → to</TableHead>
            <TableHead scope="col">Epoch</TableHead>
            <TableHead scope="col">Actor</TableHead>
            <TableHead scope="col">Reason</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {events.map((event) => (
            <TableRow key={String(event.id)} data-testid="timeline-row">
              <TableCell className="whitespace-nowrap text-muted-foreground">
                {formatTime(event.at)}
              </TableCell>
              <TableCell>
                <code>{event.transition}</code>
              </TableCell>
              <TableCell className="whitespace-nowrap">
                {event.fromState ?? "—"} → {event.toState}
              </TableCell>
              <TableCell className="whitespace-nowrap tabular-nums">
                {event.epochBefore === null || event.epochBefore === event.epochAfter
                  ? event.epochAfter
                  : `${String(event.epochBefore)} → ${String(event.epochAfter)}`}
              </TableCell>
              <TableCell className="max-w-72">
                <code className="text-xs [overflow-wrap:anywhere]">{event.actor}</code>
              </TableCell>
              <TableCell className="max-w-80 text-muted-foreground [overflow-wrap:anywhere]">
                {event.reason ?? ""}
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </div>
  );
}
