/**
 * The warm-pool claim → first exec figure (issue 38: p50 ≤ 1 s, agent-sandbox's own
 * claim-latency threshold). Berth on its own kube-sim with an operator's pool of one member
 * (deploy/kubernetes/warm-pool.yaml): each round waits, untimed, until the pool has a Ready
 * member again, then times a new session's acquire → establish (the claim, the identity write,
 * boxd's bind) → first `true`, through the lease and the spawner as the cold path is. A round
 * whose box is not the pool's member fails the run, so the figure is never a direct create's.
 */
import type { DbClient } from "@berth/db";
import { median } from "../harness/stats.ts";
import { openWindow } from "./requestWindow.ts";
import { KubeBenchWorld } from "./world.ts";

const POOL = "bench-pool";
/** How long a round waits for the pool to refill (a new member's pod and boxd starting). */
const REFILL_MS = 60_000;

export interface ClaimFigures {
  readonly p50Ms: number;
  readonly requests: number;
  readonly runs: number;
}

export async function measureClaims(
  db: DbClient,
  runs: number,
  progress: (line: string) => void,
): Promise<ClaimFigures> {
  await using world = await KubeBenchWorld.create(db, { warmPool: POOL });
  // The first create makes the pool's key Secret (its pods start once it is there): it finds
  // the pool empty and creates directly. Untimed.
  const first = await world.acquireAndExec(await world.session());
  if (first.instanceId.startsWith(`${POOL}-`))
    throw new Error("the pool had a Ready member before its key existed");
  const times: number[] = [];
  const requests: number[] = [];
  for (let run = 1; run <= runs; run++) {
    await world.kube.warmPoolReady(POOL, REFILL_MS);
    const session = await world.session();
    const window = openWindow(world.kube.sim);
    const started = performance.now();
    const box = await world.acquireAndExec(session);
    const ms = performance.now() - started;
    const step = window.end();
    if (!box.instanceId.startsWith(`${POOL}-`))
      throw new Error(`round ${String(run)} made box ${box.instanceId}, not one of ${POOL}'s`);
    times.push(ms);
    requests.push(step.calls);
    progress(
      `claim ${String(run)}/${String(runs)}: ${String(Math.round(ms))} ms, ${String(step.calls)}+${String(step.pollReads)} requests (${step.trace.join(", ")})`,
    );
  }
  return { p50Ms: median(times), requests: median(requests), runs };
}
