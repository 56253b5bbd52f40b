import { z } from "zod";

// The variables the launcher sets for the processes it starts. Each process's env.ts takes the
// fields it reads from here, so the launcher and its children agree on their names and shapes.

/** BERTH_LAUNCHER_PID: the launcher's pid; a process given it stops once the launcher is gone. */
export const launcherPidSchema = z.coerce.number().int().positive().optional();

/**
 * BERTH_LAUNCH_NONCE: a random value the launcher makes for each start and gives its web server
 * only, which proves it holds it to the launcher's readiness probe (see launchProof.ts).
 */
export const launchNonceSchema = z
  .string()
  .min(32, { error: "must be at least 32 characters (the launcher sets it)" })
  .optional();
