/**
 * Tensor-core matmul (`npm run bench -- tensor-cores`; compiled: `node dist/bench/main.js
 * tensor-cores`). One run prints: the adapter's features; the error of each float32 matmul
 * precision ('highest', 'high', 'medium') against a float64 reference on odd shapes, batches,
 * transposed and offset views; then TFLOP/s of each precision beside torch.matmul (f16, and
 * fp32 with TF32 off) measured in the same run. Without tensor cores (lavapipe) every precision
 * runs the f32 kernel, and the table says so. Both sides keep the GPU busy before timing a shape
 * (ours until the rate stops rising, at least half a second; torch half a second, in a process of
 * its own whose GPU work runs back to back): after an idle spell the clocks are low (see warmUp
 * in ./settle.ts).
 */
import { Wgpu } from '../src/backends/wgpu/backend.js';
import type { MatmulPrecision } from '../src/backends/wgpu/kernels/matmul-tc.js';
import { fromData, type Tensor } from '../src/index.js';
import { smClockMHz, torchJson } from './gpu-baselines.js';
import { settle, warmUp } from './settle.js';

const PRECISIONS: readonly MatmulPrecision[] = ['highest', 'high', 'medium'];
type Shape3 = readonly [number, number, number];

function values(n: number, seed: number): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ((s >>> 8) / 16777216) * 4 - 2;
  }
  return out;
}

interface Case {
  readonly name: string;
  readonly a: readonly number[];
  readonly b: readonly number[];
  /** Views applied before the matmul. */
  readonly transposeA?: boolean;
  readonly sliceA?: boolean;
}

const CASES: readonly Case[] = [
  { name: '256x256x256', a: [256, 256], b: [256, 256] },
  { name: '1000x500 @ 500x3000', a: [1000, 500], b: [500, 3000] },
  { name: '127x65 @ 65x129', a: [127, 65], b: [65, 129] },
  { name: '1x33 @ 33x17', a: [1, 33], b: [33, 17] },
  { name: 'batched [3,70,61] @ [3,61,33]', a: [3, 70, 61], b: [3, 61, 33] },
  { name: 'broadcast [2,3,40,24] @ [24,56]', a: [2, 3, 40, 24], b: [24, 56] },
  { name: 'transposed A view [96,80]^T @ [96,48]', a: [96, 80], b: [96, 48], transposeA: true },
  { name: 'offset A view [1:,:] of [129,64] @ [64,72]', a: [129, 64], b: [64, 72], sliceA: true },
];

/** max |c - ref| / sum_k |a b| over all elements, with the reference in float64. */
function relError(a: Float64Array, b: Float64Array, c: Float32Array, batches: number, bBatched: boolean, M: number, K: number, N: number): number {
  let worst = 0;
  for (let q = 0; q < batches; q++) {
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let ref = 0;
        let mag = 0;
        for (let k = 0; k < K; k++) {
          const p = a[q * M * K + i * K + k]! * b[(bBatched ? q * K * N : 0) + k * N + j]!;
          ref += p;
          mag += Math.abs(p);
        }
        worst = Math.max(worst, Math.abs(c[q * M * N + i * N + j]! - ref) / (mag || 1));
      }
    }
  }
  return worst;
}

async function errors(w: Wgpu, c: Case): Promise<number> {
  const av = values(c.a.reduce((x, y) => x * y, 1), 11);
  const bv = values(c.b.reduce((x, y) => x * y, 1), 23);
  let a: Tensor<Wgpu, 'float'> = fromData(w, av, { shape: c.a });
  const b: Tensor<Wgpu, 'float'> = fromData(w, bv, { shape: c.b });
  // The logical A as a dense float64 [batches, M, K] array, whatever view produced it.
  let logical = Float64Array.from(av);
  let shapeA = [...c.a];
  if (c.transposeA) {
    a = a.transpose();
    const [r, k] = c.a as [number, number];
    logical = new Float64Array(r * k);
    for (let i = 0; i < k; i++) for (let j = 0; j < r; j++) logical[i * r + j] = av[j * k + i]!;
    shapeA = [k, r];
  }
  if (c.sliceA) {
    a = a.slice([[1, c.a[0]!]]);
    logical = logical.slice(c.a[1]!);
    shapeA = [c.a[0]! - 1, c.a[1]!];
  }
  // Once with the built-in choice, once with the tuned variant: both must be right.
  const first = await a.matmul(b).toData();
  await w.autotuned();
  const { values: data } = await a.matmul(b).toData();
  const M = shapeA[shapeA.length - 2]!;
  const K = shapeA[shapeA.length - 1]!;
  const N = c.b[c.b.length - 1]!;
  const batches = first.shape.slice(0, -2).reduce((x, y) => x * y, 1);
  const bBatched = c.b.length > 2;
  // Broadcast A over b's batch is not among the cases; A's batch covers the output's.
  const ref64 = Float64Array.from(bv);
  return Math.max(relError(logical, ref64, first.values, batches, bBatched, M, K, N), relError(logical, ref64, data, batches, bBatched, M, K, N));
}


/** TFLOP/s of the tuned kernel, and its error on 64 sampled outputs (same metric as above). */
async function tflops(w: Wgpu, [m, k, n]: Shape3, reps: number, dtype: 'float32' | 'float16' = 'float32'): Promise<{ tflops: number; error: number; mhz?: number }> {
  let av = values(m * k, 5);
  let bv = values(k * n, 9);
  const a: Tensor<Wgpu, 'float'> = fromData(w, av, { shape: [m, k], dtype });
  const b: Tensor<Wgpu, 'float'> = fromData(w, bv, { shape: [k, n], dtype });
  // The reference multiplies what the tensors hold (float16 inputs are rounded once).
  if (dtype === 'float16') {
    av = (await a.toData()).values;
    bv = (await b.toData()).values;
  }
  const warm = a.matmul(b);
  await settle(warm);
  warm.dispose();
  // The first call of a shape bucket starts the kernel trials: time (and check) the winner.
  await w.autotuned();
  await warmUp(() => a.matmul(b));
  const times: number[] = [];
  let last: Tensor<Wgpu, 'float'> | undefined;
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) {
      last?.dispose();
      last = a.matmul(b);
    }
    await settle(last!);
    times.push((performance.now() - t0) / reps);
  }
  const mhz = smClockMHz();
  const { values: c } = await last!.toData();
  let error = 0;
  for (let s = 0; s < 64; s++) {
    const i = (s * 7919) % m;
    const j = (s * 104729) % n;
    let ref = 0;
    let mag = 0;
    for (let q = 0; q < k; q++) {
      const p = av[i * k + q]! * bv[q * n + j]!;
      ref += p;
      mag += Math.abs(p);
    }
    error = Math.max(error, Math.abs(c[i * n + j]! - ref) / (mag || 1));
  }
  last!.dispose();
  a.dispose();
  b.dispose();
  times.sort((x, y) => x - y);
  return { tflops: (2 * m * k * n) / (times[2]! / 1000) / 1e12, error, ...(mhz !== undefined ? { mhz } : {}) };
}

const TORCH = `
import json, sys, time, torch
torch.backends.cuda.matmul.allow_tf32 = False
out = {}
for (m, k, n) in json.loads(sys.argv[1]):
    for name, dt in (('f16', torch.float16), ('f32', torch.float32)):
        a = torch.randn(m, k, device='cuda', dtype=dt); b = torch.randn(k, n, device='cuda', dtype=dt)
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < 0.5:  # the same half second of warm-up as ours
            for _ in range(8): a @ b
            torch.cuda.synchronize()
        ts = []
        reps = 20 if m * n * k >= 2**36 else 50
        for r in range(5):
            t0 = time.perf_counter()
            for _ in range(reps): a @ b
            torch.cuda.synchronize(); ts.append((time.perf_counter() - t0) / reps)
        ts.sort(); out[f'{name} {m}x{k}x{n}'] = 2 * m * n * k / ts[2] / 1e12
print(json.dumps(out))
`;

/**
 * One backend (one device) at a time: with several devices open on one GPU the timings were
 * far lower and unstable on the H200, so each precision gets the GPU to itself.
 */
async function withBackend<T>(precision: MatmulPrecision, fn: (w: Wgpu) => Promise<T>): Promise<T> {
  const w = new Wgpu({ matmulPrecision: precision });
  try {
    return await fn(w);
  } finally {
    await w.close();
  }
}

export async function main(args: readonly string[] = []): Promise<void> {
  const small = args.includes('--small');
  await withBackend('highest', async (w) => {
    const features = await w.features();
    const info = await w.adapterInfo();
    console.log(`adapter: ${info.vendor} ${info.description}; shader-f16 ${features.f16 ? 'yes' : 'no'}; tensor cores (subgroup matrix f16 16x16x16 -> f32) ${features.tensorCores ? 'yes' : 'no: every precision runs the f32 kernel'}`);
  });
  console.log('\nerror against float64: max |c - ref| / sum_k |a_ik b_kj| (inputs uniform in [-2, 2))');
  const errorRows = CASES.map((c) => [c.name]);
  for (const p of PRECISIONS) {
    await withBackend(p, async (w) => {
      for (const [i, c] of CASES.entries()) errorRows[i]!.push((await errors(w, c)).toExponential(2));
    });
  }
  console.log(['case', ...PRECISIONS].join(' | '));
  for (const row of errorRows) console.log(row.join(' | '));

  const shapes: Shape3[] = small ? [[256, 256, 256]] : [[1024, 1024, 1024], [2048, 2048, 2048], [4096, 4096, 4096], [1000, 500, 3000]];
  const torch = small ? undefined : torchJson<Record<string, number>>(TORCH, [JSON.stringify(shapes)]);
  // Each timed round holds about a TFLOP of matmuls (466 at 1024, 10 at 4096): ops are encoded
  // into batches that the GPU starts on when submitted, so a round of 40 small matmuls also
  // times the host encoding the first batch (1024: 14 TFLOP/s in rounds of 40 against 25 in
  // rounds of 400 on the H200, with the kernel at 26.6 by GPU timestamps).
  // (--small, for software adapters: rounds of about a GFLOP.)
  const perRound = small ? 1e9 : 1e12;
  const reps = ([m, k, n]: Shape3): number => Math.max(10, Math.ceil(perRound / (2 * m * k * n)));
  // ours[precision or 'float16'][shape index]; float16 in a backend of its own too.
  type Row = { tflops: number; error: number; mhz?: number };
  const ours = new Map<string, Row[]>();
  const tuned: string[] = [];
  for (const p of [...PRECISIONS, 'float16'] as const) {
    await withBackend(p === 'float16' ? 'highest' : p, async (w) => {
      const rows: Row[] = [];
      for (const sh of shapes) rows.push(await tflops(w, sh, reps(sh), p === 'float16' ? 'float16' : 'float32'));
      ours.set(p, rows);
      tuned.push(`  ${p}: ${JSON.stringify(await w.autotuned())}`);
    });
  }
  console.log('\nTFLOP/s (median of 5 rounds of about a TFLOP each, after a warm-up; one backend per column, one at a time); torch in the same run where present');
  console.log(['m x k x n', ...PRECISIONS.map((p) => `ours f32 ${p}`), 'ours float16', 'torch f32 (TF32 off)', 'torch f16', 'medium / torch f32', 'float16 / torch f16', 'float16 / torch f32', 'sampled error (highest / high / medium / float16)', 'SM MHz after the rounds (same order)'].join(' | '));
  const ratio = (x: number, y: number | undefined): string => (y ? (x / y).toFixed(2) : 'n/a');
  shapes.forEach((sh, i) => {
    const key = `${sh[0]}x${sh[1]}x${sh[2]}`;
    const t32 = torch?.[`f32 ${key}`];
    const t16 = torch?.[`f16 ${key}`];
    const cols = [...PRECISIONS, 'float16'].map((p) => ours.get(p)![i]!);
    const [, , med, half] = cols;
    console.log(
      [key, ...cols.map((r) => r.tflops.toFixed(1)), t32?.toFixed(1) ?? 'n/a', t16?.toFixed(1) ?? 'n/a', ratio(med!.tflops, t32), ratio(half!.tflops, t16), ratio(half!.tflops, t32), cols.map((r) => r.error.toExponential(1)).join(' / '), cols.map((r) => r.mhz ?? '-').join(' / ')].join(' | '),
    );
  });
  console.log('\nautotuned variants (shape bucket -> variant) per backend:');
  for (const line of tuned) console.log(line);
}
