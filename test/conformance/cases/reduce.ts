/** Reductions (sum, mean, max, min, prod, argmax, argmin) and softmax / logSoftmax. */
import type { Backend } from '../../../src/backends/backend.js';
import type { Tensor } from '../../../src/tensor/tensor.js';
import { EXACT, accTol, fmtShape, type Tol } from '../harness.js';
import * as R from '../ref.js';
import { Rng } from '../rng.js';
import { ex, f32, ft, it, randF, randI, value, type Case, type FT, type IT } from './util.js';

export type ReduceName = 'sum' | 'mean' | 'max' | 'min' | 'prod' | 'argmax' | 'argmin';

type Dim = number | null | undefined;

/** Calls the reduction through the tensor API; `undefined` dim means the no-argument form. */
export function callReduce(op: ReduceName, x: FT, dim: Dim, keep: boolean): Tensor<Backend> {
  if (dim === undefined) {
    switch (op) {
      case 'sum':
        return x.sum();
      case 'mean':
        return x.mean();
      case 'max':
        return x.max();
      case 'min':
        return x.min();
      case 'prod':
        return x.prod();
      case 'argmax':
        return x.argmax();
      case 'argmin':
        return x.argmin();
    }
  }
  switch (op) {
    case 'sum':
      return x.sum(dim, keep);
    case 'mean':
      return x.mean(dim, keep);
    case 'max':
      return x.max(dim, keep);
    case 'min':
      return x.min(dim, keep);
    case 'prod':
      return x.prod(dim, keep);
    case 'argmax':
      return x.argmax(dim, keep);
    case 'argmin':
      return x.argmin(dim, keep);
  }
}

function callReduceInt(op: Exclude<ReduceName, 'mean'>, x: IT, dim: number | null, keep: boolean): Tensor<Backend> {
  switch (op) {
    case 'sum':
      return x.sum(dim, keep);
    case 'max':
      return x.max(dim, keep);
    case 'min':
      return x.min(dim, keep);
    case 'prod':
      return x.prod(dim, keep);
    case 'argmax':
      return x.argmax(dim, keep);
    case 'argmin':
      return x.argmin(dim, keep);
  }
}

export const REDUCE_NAMES: readonly ReduceName[] = ['sum', 'mean', 'max', 'min', 'prod', 'argmax', 'argmin'];

export function reduceTol(op: ReduceName, k: number): Tol {
  if (op === 'sum' || op === 'mean') return accTol(k);
  if (op === 'prod') return { abs: 1e-6, rel: 1e-6 * k + 1e-6 };
  return EXACT;
}

export function reduceDType(op: ReduceName): 'int32' | 'float32' {
  return op === 'argmax' || op === 'argmin' ? 'int32' : 'float32';
}

function dimLabel(dim: Dim, keep: boolean): string {
  return `${dim === undefined || dim === null ? 'all' : `dim ${dim}`}${keep ? ' keepDims' : ''}`;
}

/** Pushes one reduction case over `a`: the reduced count sets the tolerance. */
export function reduceCase(out: Case[], op: ReduceName, a: R.Arr, dim: Dim, keep: boolean, label = fmtShape(a.shape), build?: (b: Backend) => FT): void {
  const d = dim === undefined ? null : dim;
  const k = d === null ? R.size(a.shape) : a.shape.length === 0 ? 1 : R.at(a.shape, d < 0 ? d + a.shape.length : d);
  const name = `${op} ${label} ${dimLabel(dim, keep)}`;
  const make = build ?? ((b: Backend) => ft(b, a));
  out.push(value(name, op, reduceTol(op, k), (b) => callReduce(op, make(b), dim, keep), () => ex(R.reduce(a, d, keep, R.reducers[op]), reduceDType(op))));
}

function floatReductions(out: Case[]): void {
  const configs: ReadonlyArray<readonly [Dim, boolean]> = [
    [0, false],
    [1, false],
    [-1, false],
    [1, true],
    [undefined, false],
    [null, true],
  ];
  for (const op of REDUCE_NAMES) {
    const rng = new Rng(`reduce ${op}`);
    const a = op === 'prod' ? randF(rng, [3, 4, 5], 0.5, 1.5) : randF(rng, [3, 4, 5]);
    for (const [dim, keep] of configs) reduceCase(out, op, a, dim, keep);
  }
  // Larger reductions (long rows; the CPU pool splits these when the threshold is low).
  {
    const rng = new Rng('reduce big');
    const a = randF(rng, [64, 300]);
    reduceCase(out, 'sum', a, 1, false);
    reduceCase(out, 'sum', a, undefined, false);
    reduceCase(out, 'mean', a, 0, false);
    reduceCase(out, 'max', a, 1, false);
    reduceCase(out, 'argmax', a, 1, false);
    reduceCase(out, 'argmin', a, 0, true);
  }
  // Ties: the first index of the extreme wins.
  {
    const a = f32([2, 5], [1, 3, 3, 0, 3, 2, 0, 2, 0, 2]);
    reduceCase(out, 'argmax', a, 1, false, '[2,5] ties');
    reduceCase(out, 'argmin', a, 1, false, '[2,5] ties');
    reduceCase(out, 'argmax', a, undefined, false, '[2,5] ties');
    reduceCase(out, 'argmin', a, 0, false, '[2,5] ties');
  }
  // Rank 0 and size-1 dims.
  {
    const s = f32([], [2.5]);
    reduceCase(out, 'sum', s, undefined, false, 'rank-0');
    reduceCase(out, 'sum', s, 0, false, 'rank-0');
    reduceCase(out, 'max', s, undefined, false, 'rank-0');
    reduceCase(out, 'argmax', s, undefined, false, 'rank-0');
    reduceCase(out, 'mean', s, null, true, 'rank-0');
    const rng = new Rng('reduce size1');
    const a = randF(rng, [1, 1, 3]);
    reduceCase(out, 'sum', a, 0, false);
    reduceCase(out, 'prod', a, 1, true);
    const c = randF(rng, [4, 1]);
    reduceCase(out, 'max', c, 1, true);
    reduceCase(out, 'argmin', c, 1, false);
    reduceCase(out, 'mean', c, 0, false);
  }
}

function intReductions(out: Case[]): void {
  const ops = ['sum', 'max', 'min', 'prod', 'argmax', 'argmin'] as const;
  for (const op of ops) {
    const rng = new Rng(`reduce int ${op}`);
    const a = op === 'prod' ? randI(rng, [3, 4], -3, 3) : randI(rng, [3, 4], -5, 5);
    for (const [dim, keep] of [
      [1, false],
      [0, true],
      [null, false],
    ] as const) {
      const name = `${op} int32 [3,4] ${dimLabel(dim, keep)}`;
      out.push(value(name, op, EXACT, (b) => callReduceInt(op, it(b, a), dim, keep), () => ex(R.reduce(a, dim, keep, R.reducers[op]), 'int32')));
    }
  }
  {
    const a = R.arr([3], [2 ** 31 - 1, 1, 5]);
    out.push(value('sum int32 wraps', 'sum', EXACT, (b) => it(b, a).sum(), () => ex(R.arr([], [R.wrap(BigInt(2 ** 31 - 1) + 6n)]), 'int32')));
    const p = R.arr([3], [1000003, 1000033, 1000037]);
    const want = R.wrap(BigInt(1000003) * BigInt(1000033) * BigInt(1000037));
    out.push(value('prod int32 wraps', 'prod', EXACT, (b) => it(b, p).prod(), () => ex(R.arr([], [want]), 'int32')));
  }
}

const SOFTMAX_TOL: Tol = { abs: 1e-6, rel: 1e-5 };
const LOGSOFTMAX_TOL: Tol = { abs: 1e-5, rel: 1e-5 };

export function softmaxCase(out: Case[], log: boolean, a: R.Arr, dim: number | undefined, label: string, build?: (b: Backend) => FT): void {
  const op = log ? 'logSoftmax' : 'softmax';
  const make = build ?? ((b: Backend) => ft(b, a));
  const name = `${op} ${label}${dim === undefined ? '' : ` dim ${dim}`}`;
  out.push(
    value(
      name,
      op,
      log ? LOGSOFTMAX_TOL : SOFTMAX_TOL,
      (b) => {
        const x = make(b);
        if (dim === undefined) return log ? x.logSoftmax() : x.softmax();
        return log ? x.logSoftmax(dim) : x.softmax(dim);
      },
      () => ex(R.softmax(a, dim ?? -1, log)),
    ),
  );
}

function softmaxCases(out: Case[]): void {
  for (const log of [false, true]) {
    const rng = new Rng(`softmax ${log}`);
    const a = randF(rng, [4, 7], -3, 3);
    softmaxCase(out, log, a, undefined, '[4,7]');
    softmaxCase(out, log, a, 0, '[4,7]');
    const c = randF(rng, [2, 3, 5], -3, 3);
    softmaxCase(out, log, c, 1, '[2,3,5]');
    softmaxCase(out, log, c, -1, '[2,3,5]');
    const big = f32([3, 3], [1000, 1001, 1002, -1000, -1001, -1002, 1000, -1000, 0]);
    softmaxCase(out, log, big, -1, 'large magnitude (+-1000)');
    softmaxCase(out, log, big, 0, 'large magnitude (+-1000)');
    // A max past ~1e16: log z must not be added to the max before subtracting (it would vanish).
    const huge = f32([2, 3], [1e30, 1e30, 0, -3e20, -3e20, -3e20]);
    softmaxCase(out, log, huge, -1, 'huge magnitude (1e30)');
    const inf = f32([2, 3], [0, -Infinity, 1, -Infinity, -Infinity, 5]);
    softmaxCase(out, log, inf, -1, 'with -inf entries');
    softmaxCase(out, log, f32([], [3.5]), undefined, 'rank-0');
    softmaxCase(out, log, randF(rng, [3, 1]), 1, 'size-1 dim [3,1]');
    softmaxCase(out, log, randF(rng, [8, 1000], -5, 5), -1, 'long rows [8,1000]');
  }
}

export function reduceCases(): Case[] {
  const out: Case[] = [];
  floatReductions(out);
  intReductions(out);
  softmaxCases(out);
  return out;
}
