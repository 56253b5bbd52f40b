import { defaultLeaseConfig } from "@berth/sandbox";
import pg from "pg";

/**
 * The same lease functions called through raw `pg` with the same connection count: no
 * TypeScript layer, no Prisma, no validation. The ratio against it is Berth's own overhead.
 */
export class RawLeaseCalls {
  readonly pool: pg.Pool;

  constructor(options: { url: string; connections: number }) {
    this.pool = new pg.Pool({ connectionString: options.url, max: options.connections });
    // An idle connection the server ends is replaced on the next checkout (as createDbClient's
    // pool does); unheard, its error would end the benchmark's process.
    this.pool.on("error", () => undefined);
  }

  async acquire(options: {
    workspaceId: string;
    sessionId: string;
    holderId: string;
  }): Promise<{ leaseId: string }> {
    const { rows } = await this.pool.query<{ outcome: string; lease: { id: string } }>(
      `SELECT outcome, reason, lease FROM berth_lease_acquire($1, $2, 'direct', $3, NULL, $4, $5, NULL, $6)`,
      [
        options.workspaceId,
        options.sessionId,
        options.holderId,
        defaultLeaseConfig.leaseTtlMs,
        defaultLeaseConfig.warmingTimeoutMs,
        new Date(),
      ],
    );
    const row = rows[0];
    if (row?.outcome !== "attached")
      throw new Error(`raw acquire answered ${String(row?.outcome)}`);
    return { leaseId: row.lease.id };
  }

  async release(options: {
    workspaceId: string;
    leaseId: string;
    holderId: string;
  }): Promise<void> {
    const { rows } = await this.pool.query<{ outcome: string }>(
      `SELECT outcome, reason, lease FROM berth_lease_release($1, $2, 'direct', $3, $4, $5)`,
      [
        options.workspaceId,
        options.leaseId,
        options.holderId,
        defaultLeaseConfig.idleGraceMs,
        new Date(),
      ],
    );
    if (rows[0]?.outcome !== "released") throw new Error("raw release failed");
  }
}
