/**
 * Fault injection: rules that pick requests (by verb, resource, namespace, name) and, on the Nth
 * matching call or at a seeded rate, give them an effect instead of, or before, the real answer.
 * Deterministic: a rate draws from the rule's own RNG, seeded, so a run repeats exactly.
 */
import type { FaultCode } from "./faultStatus.ts";
import type { RequestInfo, Verb } from "./requestInfo.ts";

export type FaultEffect =
  /** Answer with this code's Status instead of running the request. */
  | { kind: "status"; code: FaultCode; retryAfterSeconds?: number; message?: string }
  /** Hold the request this long (real time) before running it. */
  | { kind: "latency"; ms: number }
  /** Hold the request until released, the client aborts, or the simulator closes. */
  | { kind: "hang" }
  /** A watch ends cleanly in place of sending event `afterEvents + 1` (default: the first). */
  | { kind: "dropWatch"; afterEvents?: number };

export interface FaultSpec {
  /** One verb, several, or every verb when left out. */
  verb?: Verb | Verb[];
  /** A plural such as `sandboxes`; optionally `sandboxes/status` for a subresource. */
  resource?: string;
  group?: string;
  namespace?: string;
  name?: string;
  /** Fire on the Nth matching request (1-based) and the `times - 1` after it. */
  nth?: number;
  /** Fire on each matching request with this probability, drawn from a seeded RNG. */
  rate?: number;
  /** At most this many injections; default 1 with `nth`, unlimited otherwise. */
  times?: number;
  /** Seeds this rule's RNG; defaults to the injector's seed. */
  seed?: number;
  effect: FaultEffect;
}

export interface FaultHandle {
  /** Stops the rule matching; requests it is holding stay held until released. */
  remove(): void;
  /** Lets every request this rule is holding (`hang`) proceed as normal. */
  release(): void;
  /** How many requests this rule has matched and how many it has changed. */
  readonly matched: number;
  readonly injected: number;
}

/** mulberry32: a tiny, good-enough PRNG whose whole state is one 32-bit seed. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

class FaultRule implements FaultHandle {
  matched = 0;
  injected = 0;
  removed = false;
  private readonly random: () => number;
  private readonly held = new Set<() => void>();

  constructor(
    readonly spec: FaultSpec,
    seed: number,
    private readonly onRemove: (rule: FaultRule) => void,
  ) {
    this.random = seededRandom(spec.seed ?? seed);
  }

  private selects(info: RequestInfo): boolean {
    const { spec } = this;
    const verbs = spec.verb === undefined ? undefined : [spec.verb].flat();
    if (verbs !== undefined && !verbs.includes(info.verb)) return false;
    if (spec.resource !== undefined) {
      const [plural, sub] = spec.resource.split("/", 2);
      if (plural !== info.resource || sub !== info.subresource) return false;
    }
    if (spec.group !== undefined && spec.group !== info.group) return false;
    if (spec.namespace !== undefined && spec.namespace !== info.namespace) return false;
    return spec.name === undefined || spec.name === info.name;
  }

  /**
   * Whether this rule fires for the request; counting happens here, once per request. A rule that
   * is not `eligible` (an earlier rule fired) still counts and draws, but injects nothing.
   */
  fires(info: RequestInfo, eligible: boolean): boolean {
    if (this.removed || !this.selects(info)) return false;
    this.matched++;
    const { nth, rate } = this.spec;
    const times = this.spec.times ?? (nth === undefined ? Infinity : 1);
    if (this.injected >= times) return false;
    if (nth !== undefined && this.matched < nth) return false;
    // The draw happens for every matching call, so the sequence depends only on the seed.
    if (rate !== undefined && this.random() >= rate) return false;
    if (!eligible) return false;
    this.injected++;
    return true;
  }

  /** Holds until released; resolves at once if the rule is already gone. */
  hold(): { released: Promise<void>; cancel: () => void } {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.held.add(release);
    return {
      released,
      cancel: () => {
        this.held.delete(release);
        release();
      },
    };
  }

  release(): void {
    for (const release of [...this.held]) release();
    this.held.clear();
  }

  remove(): void {
    this.removed = true;
    this.onRemove(this);
  }
}

/** The rules of one simulator; `sim.faults`. */
export class FaultInjector {
  private readonly rules: FaultRule[] = [];

  constructor(private readonly seed = 1) {}

  inject(spec: FaultSpec): FaultHandle {
    const rule = new FaultRule(spec, this.seed, (removed) => {
      const index = this.rules.indexOf(removed);
      if (index >= 0) this.rules.splice(index, 1);
    });
    this.rules.push(rule);
    return rule;
  }

  /** Removes every rule and releases every held request. */
  clear(): void {
    for (const rule of [...this.rules]) {
      rule.release();
      rule.remove();
    }
  }

  /**
   * The first rule that fires for the request, in injection order. Each rule sees every request
   * it selects, so `nth` counts do not depend on other rules.
   */
  choose(info: RequestInfo): FaultRule | undefined {
    let chosen: FaultRule | undefined;
    for (const rule of [...this.rules]) {
      if (rule.fires(info, chosen === undefined)) chosen = rule;
    }
    return chosen;
  }

  /** Releases every held request (on close, so no request outlives the server). */
  releaseAll(): void {
    for (const rule of this.rules) rule.release();
  }
}
