/** Command-line options of the benchmarks. */

/** `name <positive integer>` from `args`, or `fallback` when absent. */
export function intOption(args: readonly string[], name: string, fallback: number): number {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const v = Number(args[at + 1]);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} takes a positive integer (got ${args[at + 1]})`);
  return v;
}
