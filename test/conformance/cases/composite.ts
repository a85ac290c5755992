/** eye, linspace, pad, oneHot and scaledDotProductAttention. */
import type { Backend } from '../../../src/backends/backend.js';
import { eye, linspace, random, Distribution } from '../../../src/tensor/creation.js';
import { scaledDotProductAttention } from '../../../src/tensor/attention.js';
import { ConformanceError, EXACT, accTol, compare, type Tol } from '../harness.js';
import * as R from '../ref.js';
import * as O from '../ref-ops.js';
import { Rng } from '../rng.js';
import { bt, check, ex, ft, it, randB, randF, randI, value, type Case } from './util.js';

function creation(out: Case[]): void {
  const eyeRef = (n: number, m: number) => R.arr([n, m], Array.from({ length: n * m }, (_, i) => (Math.floor(i / m) === i % m ? 1 : 0)));
  for (const [n, m] of [
    [3, 3],
    [2, 5],
    [4, 1],
    [0, 3],
  ] as const) {
    out.push(value(`eye(${n}, ${m})`, 'eye', EXACT, (b) => eye(b, n, m), () => ex(eyeRef(n, m))));
  }
  out.push(value('eye(3) int32', 'eye', EXACT, (b) => eye(b, 3, 3, { dtype: 'int32' }), () => ex(eyeRef(3, 3), 'int32')));
  out.push(value('eye(2, 3) bool', 'eye', EXACT, (b) => eye(b, 2, 3, { dtype: 'bool' }), () => ex(eyeRef(2, 3), 'bool')));
  // torch.linspace: the first half from start, the second from end (both ends exact).
  const lin = (s: number, e: number, n: number) => R.arr([n], Array.from({ length: n }, (_, i) => (n === 1 ? s : i < Math.floor(n / 2) ? s + ((e - s) / (n - 1)) * i : e - ((e - s) / (n - 1)) * (n - 1 - i))));
  for (const [s, e, n] of [
    [0, 1, 5],
    [-3, 7.5, 11],
    [2, -2, 4],
    [0.1, 0.9, 1],
    [0, 1, 0],
    [-1e3, 1e3, 1001],
  ] as const) {
    out.push(value(`linspace(${s}, ${e}, ${n})`, 'linspace', { abs: 0, rel: 1e-6 }, (b) => linspace(b, s, e, n), () => ex(lin(s, e, n))));
  }
  out.push(value('linspace(0, 10, 5) int32 truncates', 'linspace', EXACT, (b) => linspace(b, 0, 10, 5, { dtype: 'int32' }), () => ex(R.arr([5], [0, 2, 5, 7, 10]), 'int32')));
}

function padCases(out: Case[]): void {
  const rng = new Rng('pad');
  const a = randF(rng, [2, 3, 4]);
  const configs: ReadonlyArray<readonly [readonly number[], 'constant' | 'reflect' | 'replicate' | 'circular', number]> = [
    [[1, 2], 'constant', 0],
    [[1, 1, 2, 0], 'constant', -1.5],
    [[0, 0, 0, 0, 1, 1], 'constant', 7],
    [[-1, 2], 'constant', 0],
    [[2, -3, -1, 1], 'constant', 0.5],
    [[3, 1], 'reflect', 0],
    [[1, 2, 2, 1], 'reflect', 0],
    [[3, 3, 1, 0], 'replicate', 0],
    [[0, 0, 0, 0, 2, 2], 'replicate', 0],
    [[4, 2], 'circular', 0],
    [[1, 3, 2, 3], 'circular', 0],
  ];
  for (const [pads, mode, v] of configs) {
    const name = `pad ${mode} [${pads.join(', ')}]${mode === 'constant' ? ` value ${v}` : ''}`;
    out.push(value(name, 'pad', EXACT, (b) => ft(b, a).pad(pads, mode, v), () => ex(O.pad(a, pads, mode, v))));
  }
  const i = randI(rng, [3, 3]);
  out.push(value('pad int32 reflect [2, 2]', 'pad', EXACT, (b) => it(b, i).pad([2, 2], 'reflect'), () => ex(O.pad(i, [2, 2], 'reflect', 0), 'int32')));
  out.push(value('pad int32 constant 9', 'pad', EXACT, (b) => it(b, i).pad([1, 0, 0, 1], 'constant', 9), () => ex(O.pad(i, [1, 0, 0, 1], 'constant', 9), 'int32')));
  const bo = randB(rng, [2, 3]);
  out.push(value('pad bool replicate', 'pad', EXACT, (b) => bt(b, bo).pad([1, 1], 'replicate'), () => ex(O.pad(bo, [1, 1], 'replicate', 0), 'bool')));
  out.push(value('pad a transposed view (reflect)', 'pad', EXACT, (b) => ft(b, a).swapDims(1, 2).pad([1, 1], 'reflect'), () => ex(O.pad(R.permute(a, [0, 2, 1]), [1, 1], 'reflect', 0))));
  out.push(value('pad nothing', 'pad', EXACT, (b) => ft(b, a).pad([0, 0], 'reflect'), () => ex(a)));
}

function oneHotCases(out: Case[]): void {
  const idx = R.arr([2, 3], [0, 4, 2, 2, 1, 3]);
  const ref = (a: R.Arr, c: number) => R.arr([...a.shape, c], a.data.flatMap((k) => Array.from({ length: c }, (_, j) => (j === k ? 1 : 0))));
  out.push(value('oneHot [2,3] 5 classes', 'oneHot', EXACT, (b) => it(b, idx).oneHot(5), () => ex(ref(idx, 5), 'int32')));
  out.push(value('oneHot float32 7 classes', 'oneHot', EXACT, (b) => it(b, idx).oneHot(7, 'float32'), () => ex(ref(idx, 7))));
  const r0 = R.arr([], [2]);
  out.push(value('oneHot rank-0 index', 'oneHot', EXACT, (b) => it(b, r0).oneHot(3), () => ex(ref(r0, 3), 'int32')));
  out.push(
    check('oneHot index out of range fails the op', 'oneHot', EXACT, async (b) => {
      const t = it(b, R.arr([3], [0, 5, 1])).oneHot(5);
      try {
        await t.toData();
      } catch (e) {
        if (!/out of range/.test(String(e))) throw new ConformanceError(`oneHot: expected an out-of-range error, got ${String(e)}`);
        return;
      } finally {
        t.dispose();
      }
      throw new ConformanceError('oneHot: an index of 5 with 5 classes did not fail');
    }),
  );
}

const ATT_TOL: Tol = accTol(16);

function attentionCases(out: Case[]): void {
  const rng = new Rng('sdpa');
  const q = randF(rng, [2, 5, 4], -1, 1);
  const k = randF(rng, [2, 6, 4], -1, 1);
  const v = randF(rng, [2, 6, 3], -1, 1);
  const kq = randF(rng, [2, 5, 4], -1, 1);
  const vq = randF(rng, [2, 5, 3], -1, 1);
  const scale = 1 / Math.sqrt(4);
  out.push(value('scaledDotProductAttention [2,5,4] x [2,6,4]', 'scaledDotProductAttention', ATT_TOL, (b) => scaledDotProductAttention(ft(b, q), ft(b, k), ft(b, v)), () => ex(O.attention(q, k, v, scale))));
  out.push(value('scaledDotProductAttention scale 0.3', 'scaledDotProductAttention', ATT_TOL, (b) => scaledDotProductAttention(ft(b, q), ft(b, k), ft(b, v), { scale: 0.3 }), () => ex(O.attention(q, k, v, 0.3))));
  // Causal: the top-left aligned lower triangle (L = 5, S = 6: query i sees keys 0..i).
  const causal = (l: number, s: number) => (s <= l ? 0 : -Infinity);
  out.push(value('scaledDotProductAttention causal L 5, S 6', 'scaledDotProductAttention', ATT_TOL, (b) => scaledDotProductAttention(ft(b, q), ft(b, k), ft(b, v), { isCausal: true }), () => ex(O.attention(q, k, v, scale, causal))));
  out.push(value('scaledDotProductAttention causal square', 'scaledDotProductAttention', ATT_TOL, (b) => scaledDotProductAttention(ft(b, q), ft(b, kq), ft(b, vq), { isCausal: true }), () => ex(O.attention(q, kq, vq, scale, causal))));
  // A bool mask: true where a query may attend (every row keeps at least one key).
  const m = randB(rng, [5, 6], 0.6);
  const mm = R.arr([5, 6], m.data.map((x, i) => (i % 6 === Math.floor(i / 6) % 6 ? 1 : x)));
  out.push(value('scaledDotProductAttention bool mask [5,6]', 'scaledDotProductAttention', ATT_TOL, (b) => scaledDotProductAttention(ft(b, q), ft(b, k), ft(b, v), { attnMask: bt(b, mm) }), () => ex(O.attention(q, k, v, scale, (l, s) => (R.get(mm, [l, s]) ? 0 : -Infinity)))));
  const fm = randF(rng, [5, 6], -2, 2);
  out.push(value('scaledDotProductAttention float mask (added)', 'scaledDotProductAttention', ATT_TOL, (b) => scaledDotProductAttention(ft(b, q), ft(b, k), ft(b, v), { attnMask: ft(b, fm) }), () => ex(O.attention(q, k, v, scale, (l, s) => R.get(fm, [l, s])))));
  {
    // Multi-head layout [B, H, L, E] with broadcast batch: k and v shared across heads ([B, 1, S, E]).
    const q4 = randF(rng, [2, 3, 4, 5]);
    const k4 = randF(rng, [2, 1, 6, 5]);
    const v4 = randF(rng, [2, 1, 6, 2]);
    const want = () => {
      const parts: number[] = [];
      for (let bi = 0; bi < 2; bi++) {
        for (let h = 0; h < 3; h++) {
          const qs = R.reshape(R.slice(q4, [bi, h]), [1, 4, 5]);
          const ks = R.reshape(R.slice(k4, [bi, 0]), [1, 6, 5]);
          const vs = R.reshape(R.slice(v4, [bi, 0]), [1, 6, 2]);
          parts.push(...O.attention(qs, ks, vs, 1 / Math.sqrt(5)).data);
        }
      }
      return ex(R.arr([2, 3, 4, 2], parts));
    };
    out.push(value('scaledDotProductAttention heads [2,3,4,5] with shared k, v [2,1,6,5]', 'scaledDotProductAttention', ATT_TOL, (b) => scaledDotProductAttention(ft(b, q4), ft(b, k4), ft(b, v4)), want));
  }
  out.push(
    check('scaledDotProductAttention dropout uses the seeded stream: equals the reference with the same Bernoulli draws', 'scaledDotProductAttention', ATT_TOL, async (b, tol) => {
      const p = 0.3;
      b.seed(1234);
      const got = scaledDotProductAttention(ft(b, q), ft(b, k), ft(b, v), { dropoutP: p });
      b.seed(1234);
      const mask = random(b, [2, 5, 6], Distribution.Bernoulli(1 - p));
      const keepData = (await mask.toData()).values;
      const keepArr = R.arr([2, 5, 6], Array.from(keepData));
      const zeros = Array.from(keepData).filter((x) => x === 0).length;
      if (zeros === 0 || zeros === keepData.length) throw new ConformanceError(`dropout: ${zeros} of ${keepData.length} weights dropped`);
      const want = O.attention(q, k, v, scale, undefined, (bi, l, s) => R.get(keepArr, [bi, l, s]) / (1 - p));
      compare('scaledDotProductAttention dropout', await got.toData(), ex(want), tol);
      got.dispose();
      mask.dispose();
    }),
  );
}

export function compositeCases(): Case[] {
  const out: Case[] = [];
  creation(out);
  padCases(out);
  oneHotCases(out);
  attentionCases(out);
  return out;
}
