/**
 * What a call cost each database, as its bridge counted it. The isolate's admission copies (the
 * deletions snapshot, src/accounts/deleting.ts; the suspended set and term list,
 * src/safety/copy.ts) refresh on their own clock in the background of whichever request finds them
 * due; the test stack's bridges count those requests apart (`stats.upkeep`,
 * scripts/stack/upkeep-keys.ts), so they never land in what a test counts.
 */
export async function costOn<T>(
  bridges: readonly { stats(): Promise<{ requests: number; commands: number }> }[],
  call: () => Promise<T>,
): Promise<{ result: T; requests: number[]; commands: number[] }> {
  const before = await Promise.all(bridges.map((b) => b.stats()));
  const result = await call();
  const after = await Promise.all(bridges.map((b) => b.stats()));
  return {
    result,
    requests: after.map((a, i) => a.requests - before[i]!.requests),
    commands: after.map((a, i) => a.commands - before[i]!.commands),
  };
}
