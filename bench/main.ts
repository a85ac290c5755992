/**
 * The benchmark runner: `npm run bench -- <name> [args...]` (tsx, from the sources) or, where
 * there is no tsx (the GPU machine), `npm run build && node dist/bench/main.js <name> [args...]`.
 *
 * Each benchmark is a module next to this one (`bench/<name>.ts`, compiled to
 * `dist/bench/<name>.js`), loaded with a dynamic import so that a missing or broken one does
 * not stop the others. A module either does its work at top level, or exports `main(args)`
 * (or a default function) returning a promise; the runner awaits it, then exits, so that
 * worker pools or GPU devices left open cannot keep the process alive.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const BENCHES: Record<string, string> = {
  cpu: 'matmul / GELU / scheduler overhead: Switchyard inline vs pool beside TensorFlow.js cpu and wasm; inline threshold sweep',
  wgpu: 'WebGPU backend figures and their baselines',
  overlap: 'CPU and GPU work overlapping through the router',
  overhead: 'per-op overhead of a tiny add: bare Cpu, Router, Autodiff<Router>',
  ops: 'scans, sorts, composite reductions, padding, activations, attention: Switchyard CPU (inline, pool; --wgpu) beside TensorFlow.js cpu',
  'block-profile': 'the transformer block of the fusion bench: GPU time per kernel (timestamps), its matmul shapes alone beside torch fp32 (--small for lavapipe)',
  fusion: 'Fusion: fused GELU vs unfused and torch copy; MLP and transformer training steps with and without fusion beside TF.js webgpu and torch',
  placement: "auto-placement: four workloads on each device, by hand, 'auto' and 'trace'; time to place a 1,000-op graph",
  wgsl: 'generated WGSL of the fused GELU and of add (no GPU needed; --n <elements>)',
  parallel: 'data-parallel MLP training: CPU replicas 1/2/4/8, the GPU with CPU replicas, a step timeline',
  'parallel-join': 'the join\'s loops, JS beside wasm SIMD: weighted sum of 4 gradients and plain Adam (--n 100000), memcpy for scale',
  'tensor-cores': "tensor-core matmul: error of each float32 precision against float64, TFLOP/s beside torch f16 and fp32",
  float16: 'float16: matmul float32 vs float16, MLP training step f32 vs f16-mixed (--cpu for the CPU backend, --small for lavapipe)',
  'solo-overhead': "DataParallel's own cost per step on one GPU: its direct solo step against the same step without it, alternating (--batch 1024 --steps 1500; --small for lavapipe)",
  'exp-cost': "WebGPU: the prelude's accurate exp, exp2, expm1, pow and sigmoid against the driver's builtins and a copy (--n 33554432 --rounds 30)",
  'fused-optim': 'optimizer updates fused (one record per parameter) against op by op: the MLP step on WebGPU, plain and under Fusion, alternating (--batch 256,1024 --steps 600; --small for lavapipe)',
  'tuned-instances': 'several devices on one GPU, autotuned apart or sharing one table: their matmul winners and paired step speeds (--k 4 --batch 1024 --cycles 400)',
};

type BenchModule = { main?: unknown; default?: unknown };

function usage(): string {
  const lines = Object.entries(BENCHES).map(([n, d]) => `  ${n.padEnd(8)} ${d}`);
  return ['usage: npm run bench -- <name> [args...]   (compiled: node dist/bench/main.js <name> [args...])', '', 'benchmarks:', ...lines].join('\n');
}

async function run(argv: readonly string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help') {
    console.log(usage());
    return name === undefined ? 1 : 0;
  }
  if (!Object.hasOwn(BENCHES, name)) {
    console.error(`unknown benchmark '${name}'\n\n${usage()}`);
    return 1;
  }
  // From sources (tsx) the siblings are .ts files; compiled, they are .js files in dist/bench.
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const url = new URL(`./${name}${ext}`, import.meta.url);
  const file = fileURLToPath(url);
  if (!existsSync(file)) {
    const hint = ext === '.js' ? ` (compiled runner: did \`npm run build\` run after bench/${name}.ts was added?)` : ` (bench/${name}.ts has not been written yet)`;
    console.error(`benchmark '${name}' is not available: ${file} does not exist${hint}`);
    return 2;
  }
  const mod = (await import(url.href)) as BenchModule;
  const entry = typeof mod.main === 'function' ? mod.main : typeof mod.default === 'function' ? mod.default : undefined;
  if (entry) await (entry as (args: readonly string[]) => unknown)(rest);
  return 0;
}

const code = await run(process.argv.slice(2)).catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  return 1;
});
// Let stdout drain before exiting (it may be a pipe).
process.stdout.write('', () => process.exit(code));
