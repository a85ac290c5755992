/** Reductions over several dims, var / std, logsumexp, any / all, and max / min with indices. */
import type { Backend } from '../../../src/backends/backend.js';
import type { Tensor } from '../../../src/tensor/tensor.js';
import { EXACT, accTol, fmtShape, type Tol } from '../harness.js';
import * as R from '../ref.js';
import * as O from '../ref-ops.js';
import { Rng } from '../rng.js';
import { bt, ex, f32, ft, it, randB, randF, randI, value, type Case } from './util.js';

type MultiOp = 'sum' | 'mean' | 'max' | 'min' | 'prod';

function callMulti(op: MultiOp, x: Tensor<Backend, 'float'>, dims: readonly number[], keep: boolean): Tensor<Backend> {
  switch (op) {
    case 'sum':
      return x.sum(dims, keep);
    case 'mean':
      return x.mean(dims, keep);
    case 'max':
      return x.max(dims, keep);
    case 'min':
      return x.min(dims, keep);
    case 'prod':
      return x.prod(dims, keep);
  }
}

function multiDim(out: Case[]): void {
  const configs: ReadonlyArray<readonly [number[], boolean]> = [
    [[0, 2], false],
    [[1, 2], true],
    [[-1, 0], false],
    [[2, 0, 1], false],
    [[], false],
    [[1], true],
  ];
  for (const op of ['sum', 'mean', 'max', 'min', 'prod'] as const) {
    const rng = new Rng(`multi ${op}`);
    const a = op === 'prod' ? randF(rng, [3, 4, 5], 0.6, 1.4) : randF(rng, [3, 4, 5]);
    for (const [dims, keep] of configs) {
      const norm = dims.length === 0 ? null : dims.map((d) => (d < 0 ? d + 3 : d));
      const k = norm === null ? 60 : norm.reduce((n, d) => n * R.at(a.shape, d), 1);
      const tol: Tol = op === 'sum' || op === 'mean' ? accTol(k) : op === 'prod' ? { abs: 1e-6, rel: 1e-6 * k + 1e-6 } : EXACT;
      const name = `${op} dims [${dims.join(', ')}]${keep ? ' keepDims' : ''} ${fmtShape(a.shape)}`;
      out.push(value(name, op, tol, (b) => callMulti(op, ft(b, a), dims, keep), () => ex(O.reduceDims(a, norm, keep, R.reducers[op]))));
    }
  }
  {
    const a = randI(new Rng('multi int'), [2, 3, 4], -50, 50);
    out.push(value('sum int32 dims [0, 2]', 'sum', EXACT, (b) => it(b, a).sum([0, 2]), () => ex(O.reduceDims(a, [0, 2], false, R.reducers.sum), 'int32')));
    out.push(value('max int32 dims [1, 2] keepDims', 'max', EXACT, (b) => it(b, a).max([1, 2], true), () => ex(O.reduceDims(a, [1, 2], true, R.reducers.max), 'int32')));
  }
  {
    const a = f32([2, 3], [1, NaN, 3, 4, 5, 6]);
    out.push(value('max dims [0, 1] with NaN', 'max', EXACT, (b) => ft(b, a).max([0, 1]), () => ex(O.reduceDims(a, null, false, R.reducers.max))));
  }
}

function varStd(out: Case[]): void {
  const rng = new Rng('var');
  const a = randF(rng, [4, 5, 6], -3, 3);
  const configs: ReadonlyArray<readonly [number | number[] | null, number, boolean]> = [
    [null, 1, false],
    [1, 1, false],
    [-1, 0, true],
    [[0, 2], 1, false],
    [[0, 1, 2], 2, true],
  ];
  for (const std of [false, true]) {
    const op = std ? 'std' : 'var';
    for (const [dim, correction, keep] of configs) {
      const dims = dim === null ? null : typeof dim === 'number' ? [dim] : dim;
      const name = `${op} ${dim === null ? 'all' : `dims [${dims!.join(', ')}]`} correction ${correction}${keep ? ' keepDims' : ''}`;
      const ref = (v: number[]) => (std ? Math.sqrt(O.variance(v, correction)) : O.variance(v, correction));
      out.push(value(name, op, { abs: 1e-5, rel: 1e-5 }, (b) => (std ? ft(b, a).std(dim, { correction, keepDims: keep }) : ft(b, a).var(dim, { correction, keepDims: keep })), () => ex(O.reduceDims(a, dims, keep, ref))));
    }
  }
  {
    // A large mean and a small spread: the two-pass form keeps the digits a one-pass sum of squares loses.
    const b = randF(new Rng('var offset'), [64], 1000, 1001);
    out.push(value('var with a large mean (1000 + U(0, 1))', 'var', { abs: 1e-4, rel: 1e-3 }, (be) => ft(be, b).var(), () => ex(O.reduceDims(b, null, false, (v) => O.variance(v, 1)))));
    const one = f32([3, 1], [1, 2, 3]);
    out.push(value('var of one element per row is NaN (0 / 0)', 'var', EXACT, (be) => ft(be, one).var(1), () => ex(O.reduceDims(one, [1], false, (v) => O.variance(v, 1)))));
    out.push(value('var correction 0 of one element is 0', 'var', EXACT, (be) => ft(be, one).var(1, { correction: 0 }), () => ex(O.reduceDims(one, [1], false, (v) => O.variance(v, 0)))));
    const empty: R.Arr = { shape: [2, 0], data: [] };
    out.push(value('var over an empty dim is NaN', 'var', EXACT, (be) => ft(be, empty).var(1), () => ex(R.arr([2], [NaN, NaN]))));
    out.push(value('var rank-0 (correction 0)', 'var', EXACT, (be) => ft(be, f32([], [3])).var(null, { correction: 0 }), () => ex(R.arr([], [0]))));
  }
  {
    // Long rows (a workgroup each on the GPU), strided rows, and everything of a non-contiguous view.
    const rng2 = new Rng('var long');
    const long = randF(rng2, [8, 1000], -2, 2);
    const ref = (v: number[]) => O.variance(v, 1);
    out.push(value('var long rows [8,1000] dim 1', 'var', { abs: 1e-5, rel: 1e-4 }, (be) => ft(be, long).var(1), () => ex(O.reduceDims(long, [1], false, ref))));
    out.push(value('var strided rows [8,1000] dim 0', 'var', { abs: 1e-5, rel: 1e-4 }, (be) => ft(be, long).var(0), () => ex(O.reduceDims(long, [0], false, ref))));
    const t = randF(rng2, [300, 200], -2, 2);
    out.push(value('std of a transposed view over all', 'std', { abs: 1e-5, rel: 1e-4 }, (be) => ft(be, t).transpose().std(), () => ex(O.reduceDims(t, null, false, (v) => Math.sqrt(ref(v))))));
    out.push(value('var of a transposed view dims [0, 1] keepDims', 'var', { abs: 1e-5, rel: 1e-4 }, (be) => ft(be, t).transpose().var([0, 1], { keepDims: true }), () => ex(O.reduceDims(R.permute(t, [1, 0]), null, true, ref))));
    const b3 = randF(rng2, [3, 4, 5], -2, 2);
    out.push(value('var of a permuted view dims [1, 2]', 'var', { abs: 1e-5, rel: 1e-5 }, (be) => ft(be, b3).permute([2, 0, 1]).var([1, 2]), () => ex(O.reduceDims(R.permute(b3, [2, 0, 1]), [1, 2], false, ref))));
  }
}

function logsumexpCases(out: Case[]): void {
  const rng = new Rng('logsumexp');
  const a = randF(rng, [3, 4, 5], -5, 5);
  for (const [dim, keep] of [
    [1, false],
    [-1, true],
    [[0, 2], false],
    [null, false],
  ] as const) {
    const dims = dim === null ? null : typeof dim === 'number' ? [dim] : [...dim];
    const name = `logsumexp ${dim === null ? 'all' : `dims [${dims!.join(', ')}]`}${keep ? ' keepDims' : ''}`;
    out.push(value(name, 'logsumexp', { abs: 1e-5, rel: 1e-5 }, (b) => ft(b, a).logsumexp(dim, keep), () => ex(O.reduceDims(a, dims, keep, O.logsumexp))));
  }
  const edge = f32([5, 3], [1000, 1001, 999, -1000, -1001, -1002, -Infinity, -Infinity, -Infinity, Infinity, 0, -Infinity, NaN, 1, 2]);
  out.push(value('logsumexp large, -inf, +inf and NaN rows', 'logsumexp', { abs: 1e-5, rel: 1e-5 }, (b) => ft(b, edge).logsumexp(1), () => ex(O.reduceDims(edge, [1], false, O.logsumexp))));
  const empty: R.Arr = { shape: [2, 0], data: [] };
  out.push(value('logsumexp over an empty dim is -inf', 'logsumexp', EXACT, (b) => ft(b, empty).logsumexp(1), () => ex(R.arr([2], [-Infinity, -Infinity]))));
}

function anyAllCases(out: Case[]): void {
  const anyRef = (v: number[]) => (v.some((x) => x !== 0) ? 1 : 0);
  const allRef = (v: number[]) => (v.every((x) => x !== 0) ? 1 : 0);
  for (const p of [0.1, 0.9]) {
    const a = randB(new Rng(`anyall ${p}`), [3, 4, 5], p);
    for (const [dim, keep] of [
      [null, false],
      [1, false],
      [[0, 2], true],
    ] as const) {
      const dims = dim === null ? null : typeof dim === 'number' ? [dim] : [...dim];
      const label = `${dim === null ? 'all' : `dims [${dims!.join(', ')}]`}${keep ? ' keepDims' : ''} p=${p}`;
      out.push(value(`any bool ${label}`, 'any', EXACT, (b) => bt(b, a).any(dim, keep), () => ex(O.reduceDims(a, dims, keep, anyRef), 'bool')));
      out.push(value(`all bool ${label}`, 'all', EXACT, (b) => bt(b, a).all(dim, keep), () => ex(O.reduceDims(a, dims, keep, allRef), 'bool')));
    }
  }
  {
    // Non-zero is true; NaN is non-zero.
    const f = f32([3, 3], [0, 0, 0, 0, NaN, 0, 1, -2, 0.5]);
    out.push(value('any float32 (NaN counts as true) dim 1', 'any', EXACT, (b) => ft(b, f).any(1), () => ex(O.reduceDims(f, [1], false, anyRef), 'bool')));
    out.push(value('all float32 dim 1', 'all', EXACT, (b) => ft(b, f).all(1), () => ex(O.reduceDims(f, [1], false, allRef), 'bool')));
    const i = R.arr([2, 3], [0, 3, 0, 1, -1, 7]);
    out.push(value('any int32 dim 0', 'any', EXACT, (b) => it(b, i).any(0), () => ex(O.reduceDims(i, [0], false, anyRef), 'bool')));
    out.push(value('all int32', 'all', EXACT, (b) => it(b, i).all(), () => ex(O.reduceDims(i, null, false, allRef), 'bool')));
    const e: R.Arr = { shape: [2, 0], data: [] };
    out.push(value('any over an empty dim is false', 'any', EXACT, (b) => bt(b, e).any(1), () => ex(R.arr([2], [0, 0]), 'bool')));
    out.push(value('all over an empty dim is true', 'all', EXACT, (b) => bt(b, e).all(1), () => ex(R.arr([2], [1, 1]), 'bool')));
  }
}

function withIndicesCases(out: Case[]): void {
  const rows = (a: R.Arr, dim: number, keep: boolean, which: 'max' | 'min') => [
    ex(O.reduceDims(a, [dim], keep, (v) => O.extreme(v, which)[0])),
    ex(O.reduceDims(a, [dim], keep, (v) => O.extreme(v, which)[1]), 'int32'),
  ];
  const rng = new Rng('withIndices');
  const a = randF(rng, [3, 4, 5]);
  const ties = f32([3, 4], [1, 3, 3, 0, 2, 2, 2, 2, NaN, 5, NaN, 1]);
  for (const which of ['max', 'min'] as const) {
    const call = (x: Tensor<Backend, 'float'>, dim: number, keep: boolean) => {
      const r = which === 'max' ? x.maxWithIndices(dim, keep) : x.minWithIndices(dim, keep);
      return [r.values, r.indices];
    };
    const op = `${which}WithIndices`;
    out.push(value(`${op} dim 1`, op, EXACT, (b) => call(ft(b, a), 1, false), () => rows(a, 1, false, which)));
    out.push(value(`${op} dim -1 keepDims`, op, EXACT, (b) => call(ft(b, a), -1, true), () => rows(a, 2, true, which)));
    out.push(value(`${op} dim 0`, op, EXACT, (b) => call(ft(b, a), 0, false), () => rows(a, 0, false, which)));
    out.push(value(`${op} ties and NaN (first index wins)`, op, EXACT, (b) => call(ft(b, ties), 1, false), () => rows(ties, 1, false, which)));
    const i = randI(new Rng(`${op} int`), [4, 6], -3, 3);
    out.push(
      value(`${op} int32 dim 1`, op, EXACT, (b) => {
        const r = which === 'max' ? it(b, i).maxWithIndices(1) : it(b, i).minWithIndices(1);
        return [r.values, r.indices];
      }, () => [ex(O.reduceDims(i, [1], false, (v) => O.extreme(v, which)[0]), 'int32'), ex(O.reduceDims(i, [1], false, (v) => O.extreme(v, which)[1]), 'int32')]),
    );
  }
}

export function reductionCases(): Case[] {
  const out: Case[] = [];
  multiDim(out);
  varStd(out);
  logsumexpCases(out);
  anyAllCases(out);
  withIndicesCases(out);
  return out;
}
