import { createTestDatabase } from "@berth/testkit";
import { defineBenchmark, type BenchMode } from "../harness/benchmark.ts";
import { alternatingRounds } from "../harness/rounds.ts";
import { median, quantile, round } from "../harness/stats.ts";
import { RawSandboxes } from "./baseline.ts";
import { measureClaims } from "./claim.ts";
import { openWindow, type RequestWindow } from "./requestWindow.ts";
import { KubeBenchWorld, type BerthBox } from "./world.ts";

const GOAL_RATIO = 1.2;
const GOAL_RESUME_RATIO = 1.2;
const GOAL_CLAIM_P50_MS = 1000;
/**
 * The baseline polls as often as Berth's Kubernetes backend does by default (its
 * pollIntervalMs, kubernetesBackend.ts), so the two differ by what they do, not how often they look.
 */
const POLL_INTERVAL_MS = 200;
const TIMEOUT_MS = 60_000;

const plans: Record<BenchMode, { warmups: number; runs: number }> = {
  short: { warmups: 0, runs: 1 },
  // Each step waits in 200 ms polls: nine rounds keep one unlucky poll from moving a p50.
  full: { warmups: 1, runs: 9 },
};

type Kind = "cold" | "resume";

/** One timed step: how long, and what it asked of the API server. */
interface Step {
  readonly ms: number;
  readonly requests: RequestWindow;
}

/** A round of one side: a cold box to its first exec, then the same box resumed after a suspend. */
interface Round {
  readonly cold: Step;
  readonly resume: Step;
  /** Berth's own split of each step (the lease, the spawner, connect + exec); none for the raw client. */
  readonly phases?: { readonly cold: BerthBox["phases"]; readonly resume: BerthBox["phases"] };
}

async function timed<T>(
  world: KubeBenchWorld,
  work: () => Promise<T>,
): Promise<Step & { value: T }> {
  const window = openWindow(world.kube.sim);
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  return { ms, requests: window.end(), value };
}

const describeStep = (step: Step) =>
  `${String(round(step.ms, 0))} ms, ${String(step.requests.calls)}+${String(step.requests.pollReads)} requests (last write at ${String(step.requests.writesDoneMs)} ms)`;

function stepRows(side: string, rounds: readonly Round[]) {
  return (["cold", "resume"] as const).map((kind) => {
    const steps = rounds.map((r) => r[kind]);
    const ms = steps.map((s) => s.ms);
    return {
      case: `${kind} → first exec`,
      side,
      p50_ms: round(median(ms)),
      max_ms: round(quantile(ms, 1)),
      requests: median(steps.map((s) => s.requests.calls)),
      poll_reads_p50: median(steps.map((s) => s.requests.pollReads)),
      last_write_p50_ms: median(steps.map((s) => s.requests.writesDoneMs)),
      runs: steps.length,
    };
  });
}

/** The p50 of each phase of Berth's steps, for where its time goes (`cold_establish_p50_ms`…). */
function phaseFigures(rounds: readonly Round[]): Record<string, number> {
  const figures: Record<string, number> = {};
  for (const kind of ["cold", "resume"] as const) {
    for (const phase of ["acquireMs", "establishMs", "execMs"] as const) {
      const name = `${kind}_${phase.replace("Ms", "")}_p50_ms`;
      figures[name] = median(rounds.map((r) => r.phases?.[kind][phase] ?? Number.NaN));
    }
  }
  return figures;
}

export default defineBenchmark({
  name: "kubernetes",
  description:
    "cold acquire → first exec and resume → first exec through the lease and the Kubernetes backend on kube-sim, against client-node making the same Sandbox",
  async run(context) {
    const plan = plans[context.mode];
    await using database = await createTestDatabase();
    await using world = await KubeBenchWorld.create(database.prisma);
    const raw = await RawSandboxes.open({
      world: world.kube,
      pollIntervalMs: POLL_INTERVAL_MS,
      timeoutMs: TIMEOUT_MS,
    });

    const { berth, baseline } = await alternatingRounds(plan, {
      berth: async (label): Promise<Round> => {
        const session = await world.session();
        const cold = await timed(world, () => world.acquireAndExec(session));
        await world.work(session, cold.value);
        await world.suspend(session, cold.value.instanceId);
        const resume = await timed(world, () => world.acquireAndExec(session));
        await world.work(session, resume.value);
        if (resume.value.instanceId !== cold.value.instanceId)
          throw new Error(
            `resume made box ${resume.value.instanceId}, not ${cold.value.instanceId}`,
          );
        context.progress(
          `${label} berth: cold ${describeStep(cold)}; resume ${describeStep(resume)}`,
        );
        context.progress(`  cold requests: ${cold.requests.trace.join(", ")}`);
        context.progress(`  resume requests: ${resume.requests.trace.join(", ")}`);
        return { cold, resume, phases: { cold: cold.value.phases, resume: resume.value.phases } };
      },
      baseline: async (label): Promise<Round> => {
        const cold = await timed(world, () => raw.create());
        await raw.suspend(cold.value);
        const resume = await timed(world, () => raw.resume(cold.value));
        await raw.delete(cold.value);
        context.progress(
          `${label} raw client: cold ${describeStep(cold)}; resume ${describeStep(resume)}`,
        );
        return { cold, resume };
      },
    });

    const p50 = (rounds: readonly Round[], kind: Kind) => median(rounds.map((r) => r[kind].ms));
    const count = (rounds: readonly Round[], kind: Kind, of: "calls" | "pollReads") =>
      median(rounds.map((r) => r[kind].requests[of]));
    const ratio = p50(berth, "cold") / p50(baseline, "cold");
    const resumeRatio = p50(berth, "resume") / p50(baseline, "resume");
    const claim = await measureClaims(database.prisma, plan.runs, (line) => context.progress(line));
    const claimMet = claim.p50Ms <= GOAL_CLAIM_P50_MS;
    const goal = [
      `ratio<=${String(GOAL_RATIO)}`,
      `resume_ratio<=${String(GOAL_RESUME_RATIO)}`,
      `claim_p50_ms<=${String(GOAL_CLAIM_P50_MS)}`,
    ].join(",");
    return {
      ratio,
      goal,
      goalMet: ratio <= GOAL_RATIO && resumeRatio <= GOAL_RESUME_RATIO && claimMet,
      figures: {
        cold_p50_ms: p50(berth, "cold"),
        baseline_cold_p50_ms: p50(baseline, "cold"),
        resume_ratio: resumeRatio,
        resume_p50_ms: p50(berth, "resume"),
        baseline_resume_p50_ms: p50(baseline, "resume"),
        claim_p50_ms: claim.p50Ms,
        claim_requests: claim.requests,
        allocate_requests: count(berth, "cold", "calls"),
        baseline_allocate_requests: count(baseline, "cold", "calls"),
        resume_requests: count(berth, "resume", "calls"),
        baseline_resume_requests: count(baseline, "resume", "calls"),
        allocate_poll_reads_p50: count(berth, "cold", "pollReads"),
        resume_poll_reads_p50: count(berth, "resume", "pollReads"),
        poll_interval_ms: POLL_INTERVAL_MS,
        ...phaseFigures(berth),
        runs: plan.runs,
      },
      table: [...stepRows("berth", berth), ...stepRows("raw client", baseline)],
    };
  },
});
