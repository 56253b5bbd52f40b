import type { AppRouter } from "@berth/api";
import type { inferRouterOutputs } from "@trpc/server";
import { formatTime } from "../../lib/formatTime.ts";
import { ErrorAlert } from "../errorAlert.tsx";

type Timeline = inferRouterOutputs<AppRouter>["leases"]["timeline"];
type LeaseEvent = Timeline["events"][number];

/** One lane per liveness, top to bottom in the order a box lives them. */
const lanes = ["cold", "warming", "warm", "draining"] as const;
const width = 1000;
const laneHeight = 36;
const left = 90;
const right = 20;

function laneOf(state: string): number {
  const index = lanes.indexOf(state as (typeof lanes)[number]);
  return index === -1 ? 0 : index;
}

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
  if (query.isPending) return <p aria-busy="true">Loading the timeline…</p>;
  if (query.data === undefined)
    return <ErrorAlert error={query.error} prefix="Could not load the timeline" />;
  const { events } = query.data;
  if (events.length === 0)
    return <p className="note">No lease yet: the box starts on the session&apos;s first use.</p>;
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
    <>
      <svg
        className="timeline"
        viewBox={`0 0 ${String(width)} ${String(height)}`}
        role="img"
        aria-label={`Lease timeline: ${String(events.length)} transitions, now ${events.at(-1)?.toState ?? ""} at epoch ${String(events.at(-1)?.epochAfter ?? 0)}`}
      >
        {lanes.map((lane, i) => (
          <g key={lane}>
            <line x1={left} x2={width - right} y1={y(lane)} y2={y(lane)} className="lane" />
            <text x={8} y={laneHeight * i + laneHeight / 2 + 4} className="lane-label">
              {lane}
            </text>
          </g>
        ))}
        <path d={path} className="trace" />
        {events.map((event) => (
          <g key={String(event.id)} data-testid="timeline-point">
            <circle
              cx={x(event.at)}
              cy={y(event.toState)}
              r={5}
              className={`point state-${event.toState}`}
            >
              <title>{describe(event)}</title>
            </circle>
            <text x={x(event.at) + 6} y={y(event.toState) - 8} className="epoch-label">
              e{event.epochAfter}
            </text>
          </g>
        ))}
      </svg>
      <table>
        <caption>Lease events, oldest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Transition</th>
            <th scope="col">From → to</th>
            <th scope="col">Epoch</th>
            <th scope="col">Actor</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {events.map((event) => (
            <tr key={String(event.id)} data-testid="timeline-row">
              <td>{formatTime(event.at)}</td>
              <td>{event.transition}</td>
              <td>
                {event.fromState ?? "—"} → {event.toState}
              </td>
              <td>
                {event.epochBefore === null || event.epochBefore === event.epochAfter
                  ? event.epochAfter
                  : `${String(event.epochBefore)} → ${String(event.epochAfter)}`}
              </td>
              <td>
                <code>{event.actor}</code>
              </td>
              <td>{event.reason ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
