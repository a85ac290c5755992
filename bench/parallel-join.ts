/**
 * The data-parallel join's loops, JS beside wasm SIMD (`npm run bench -- parallel-join`, compiled
 * `node dist/bench/main.js parallel-join [--n 100000] [--reps 200]`): the weighted sum of four
 * float32 gradients and plain Adam over `--n` floats, on the shared memory DataParallel allocates;
 * a memcpy of the same size for scale. Median of `--reps` runs after as many warm-up runs.
 */
import { allocateShared, sharedViews } from '../src/parallel/flat.js';
import { adamRange } from '../src/parallel/flat-optimizer.js';
import { weightedSum } from '../src/parallel/reduce.js';
import { intOption as option } from './args.js';


function median(reps: number, fn: () => void): number {
  for (let i = 0; i < reps; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export function main(args: readonly string[] = []): void {
  const n = option(args, '--n', 100_000);
  const reps = option(args, '--reps', 200);
  const views = sharedViews(allocateShared(4, n, 2, 1));
  const kernels = views.kernels;
  views.grads.forEach((g, r) => {
    for (let i = 0; i < n; i++) g[i] = Math.sin(i * 0.01 + r);
  });
  for (let i = 0; i < n; i++) {
    views.weights[i] = Math.cos(i * 0.003);
    views.state[1]![i] = 1e-4 * (1 + Math.sin(i));
  }
  const inputs = views.grads.map((data) => ({ data, weight: 0.25 }));
  const rule = { kind: 'adam' as const, lr: 1e-3, beta1: 0.9, beta2: 0.999, eps: 1e-8, weightDecay: 0 };
  const adam = (k: typeof kernels) => () => adamRange(rule, views.weights, views.joined, views.state[0]!, views.state[1]!, 0, n, 10, rule.lr, k);
  const rows: Array<[string, number, number | undefined]> = [
    [`sum of 4 x ${n}`, median(reps, () => weightedSum(views.joined, inputs, 0, n)), kernels ? median(reps, () => weightedSum(views.joined, inputs, 0, n, undefined, kernels)) : undefined],
    [`plain Adam, ${n}`, median(reps, adam(undefined)), kernels ? median(reps, adam(kernels)) : undefined],
  ];
  const copy = median(reps, () => views.joined.set(views.grads[0]!));
  console.log(`parallel-join: median of ${reps} runs, ms${kernels ? '' : ' (no wasm SIMD here: JS only)'}`);
  console.log(`${'loop'.padEnd(22)} ${'JS'.padStart(8)} ${'wasm'.padStart(8)} ${'speedup'.padStart(8)}`);
  for (const [name, js, wasm] of rows) {
    console.log(`${name.padEnd(22)} ${js.toFixed(3).padStart(8)} ${wasm === undefined ? '-'.padStart(8) : wasm.toFixed(3).padStart(8)} ${wasm === undefined ? '' : `${(js / wasm).toFixed(1)}x`.padStart(8)}`);
  }
  console.log(`${`memcpy ${n} floats`.padEnd(22)} ${copy.toFixed(3).padStart(8)}`);
}
