/**
 * Runs `warmups` then `runs` rounds of Berth's side and the baseline's, alternating which goes
 * first so neither always runs on a warmer machine; answers the measured rounds' results. Each
 * side is told its round's label ("warm-up", "run 2/3") for its progress line.
 */
export async function alternatingRounds<B, T>(
  plan: { readonly warmups: number; readonly runs: number },
  sides: {
    readonly berth: (label: string) => Promise<B>;
    readonly baseline: (label: string) => Promise<T>;
  },
): Promise<{ berth: B[]; baseline: T[] }> {
  const berth: B[] = [];
  const baseline: T[] = [];
  for (let i = 0; i < plan.warmups + plan.runs; i += 1) {
    const measured = i >= plan.warmups;
    const label = measured ? `run ${String(i - plan.warmups + 1)}/${String(plan.runs)}` : "warm-up";
    const order = [
      async () => {
        const result = await sides.berth(label);
        if (measured) berth.push(result);
      },
      async () => {
        const result = await sides.baseline(label);
        if (measured) baseline.push(result);
      },
    ];
    if (i % 2 === 1) order.reverse();
    for (const side of order) await side();
  }
  return { berth, baseline };
}
