import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { AppRouter } from "../../src/index.ts";
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { EventSource } from "eventsource";
import superjson from "superjson";

// Berth's other processes, each in an OS process of its own as a deployment runs them: another
// web replica (replicaServer.ts) or the worker (apps/worker's entry). They meet this one only
// through Postgres, the boxes' data folder and the archive store their environment names.

/** A TypeScript entry run with `node --import tsx`, its stdout read line by line. */
export interface ScriptProcess {
  /** Its stdout so far, one entry a line. */
  readonly lines: readonly string[];
  /**
   * Resolves once `test` holds, checked again as each line arrives; fails when the process
   * exits first or `withinMs` pass (a bound for a broken run, not a timing).
   */
  until(test: () => boolean, what: string, withinMs?: number): Promise<void>;
  /** SIGTERM, then its exit code once it has exited. */
  stop(): Promise<number | null>;
}

/** Starts `entry` with exactly `env` (plus PATH and HOME); stderr goes to the test's. */
export function startScript(entry: string, env: Record<string, string>): ScriptProcess {
  const child = spawn(process.execPath, ["--import", "tsx", entry], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const lines: string[] = [];
  const wakers = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of wakers) wake();
  };
  let exited = false;
  const exit = once(child, "exit").then(([code]) => {
    exited = true;
    wakeAll();
    return code as number | null;
  });
  createInterface({ input: child.stdout }).on("line", (line) => {
    lines.push(line);
    wakeAll();
  });
  return {
    lines,
    async until(test, what, withinMs = 30_000) {
      const deadline = performance.now() + withinMs;
      while (!test()) {
        const left = deadline - performance.now();
        if (exited || left <= 0)
          throw new Error(`${entry}: ${exited ? "exited" : "timed out"} waiting for ${what}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(wake, left);
          function wake() {
            clearTimeout(timer);
            wakers.delete(wake);
            resolve();
          }
          wakers.add(wake);
        });
      }
    },
    async stop() {
      if (!exited) child.kill("SIGTERM");
      return exit;
    },
  };
}

/** A web replica over HTTP: where it serves, and its tRPC URL. */
export interface ServedReplica {
  readonly origin: string;
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Another web replica in an OS process of its own (test/support/replicaServer.ts), configured
 * by `env` as the web server is; it prints its address as its first line.
 */
export async function serveReplicaProcess(env: Record<string, string>): Promise<ServedReplica> {
  const replica = startScript(join(import.meta.dirname, "replicaServer.ts"), env);
  await replica.until(() => replica.lines.length > 0, "its address");
  const { url } = JSON.parse(replica.lines[0] ?? "") as { url: string };
  return {
    origin: url,
    url: `${url}/api/trpc`,
    async close() {
      await replica.stop();
    },
  };
}

/** A typed client of one replica, authenticated by bearer token on both links. */
export function replicaClient(served: { readonly url: string }, token: string) {
  const authorization = `Bearer ${token}`;
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({
          url: served.url,
          transformer: superjson,
          EventSource,
          // EventSource has no header option; eventsource@4 lets us wrap its fetch instead.
          eventSourceOptions: {
            fetch: (url, init) =>
              fetch(url, { ...init, headers: { ...init.headers, authorization } }),
          },
        }),
        false: httpBatchLink({
          url: served.url,
          transformer: superjson,
          headers: { authorization },
        }),
      }),
    ],
  });
}
