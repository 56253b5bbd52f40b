import type { createBerthClient } from "@berth/client";
import type { DbClient } from "@berth/db";
import { median } from "../harness/stats.ts";

/** Concurrent calls in a herd: issue 33's figure. */
export const HERD_SIZE = 50;
/** How much longer than one cold call the herd's last answer may take. */
export const HERD_SLACK_MS = 250;

export interface HerdFigures {
  /** One fs.list on a cold session, until its answer (median of the rounds). */
  readonly coldCallMs: number;
  /** HERD_SIZE concurrent fs.list on a cold session, until the last answer (median). */
  readonly herd50Ms: number;
  readonly rounds: number;
}

/**
 * A herd against one cold call, alternating in each round so the machine's drift hits both: a
 * fresh session each time, so every measurement starts cold and includes the box's spawn.
 */
export async function measureHerd(options: {
  readonly db: DbClient;
  readonly berth: ReturnType<typeof createBerthClient>;
  readonly workspaceId: string;
  readonly rounds: number;
}): Promise<HerdFigures> {
  const { db, berth, workspaceId } = options;
  const coldSession = async () => {
    const session = await db.session.create({
      data: { workspaceId, sandboxGroupId: crypto.randomUUID(), backend: "local" },
    });
    return { workspaceId, sessionId: session.id, path: "." };
  };
  const cold: number[] = [];
  const herd: number[] = [];
  for (let round = 0; round < options.rounds; round += 1) {
    const one = await coldSession();
    let started = performance.now();
    await berth.fs.list.query(one);
    cold.push(performance.now() - started);

    const many = await coldSession();
    started = performance.now();
    await Promise.all(Array.from({ length: HERD_SIZE }, () => berth.fs.list.query(many)));
    herd.push(performance.now() - started);
  }
  return { coldCallMs: median(cold), herd50Ms: median(herd), rounds: options.rounds };
}
