/** Scans (cumsum, cumprod), flip, roll, tril / triu, and sorting (argsort, sort, topk). */
import type { Backend } from '../../../src/backends/backend.js';
import type { DType } from '../../../src/ir/dtype.js';
import type { Tensor } from '../../../src/tensor/tensor.js';
import { EXACT, accTol } from '../harness.js';
import * as R from '../ref.js';
import * as O from '../ref-ops.js';
import { Rng } from '../rng.js';
import { bt, ex, f32, ft, it, randB, randF, randI, randWith, value, type Case } from './util.js';

type AnyT = Tensor<Backend>;

/** Builds a tensor of any dtype from reference data. */
function tensor(b: Backend, a: R.Arr, dtype: DType): AnyT {
  return dtype === 'float32' ? ft(b, a) : dtype === 'int32' ? it(b, a) : bt(b, a);
}

function scans(out: Case[]): void {
  const rng = new Rng('scan');
  const a = randF(rng, [3, 4, 5], -2, 2);
  const p = randF(rng, [3, 4, 5], 0.5, 1.5);
  for (const dim of [0, 1, 2, -1]) {
    out.push(value(`cumsum [3,4,5] dim ${dim}`, 'cumsum', accTol(5), (b) => ft(b, a).cumsum(dim), () => ex(O.alongDim(a, dim, O.cumsum))));
    out.push(value(`cumprod [3,4,5] dim ${dim}`, 'cumprod', { abs: 1e-6, rel: 1e-5 }, (b) => ft(b, p).cumprod(dim), () => ex(O.alongDim(p, dim, O.cumprod))));
  }
  {
    // Long rows: a workgroup per row on the GPU; many short rows: a thread each.
    const long = randF(rng, [4, 1000], -1, 1);
    out.push(value('cumsum long rows [4,1000]', 'cumsum', accTol(1000), (b) => ft(b, long).cumsum(1), () => ex(O.alongDim(long, 1, O.cumsum))));
    const near1 = randF(rng, [3, 700], 0.99, 1.01);
    out.push(value('cumprod long rows [3,700]', 'cumprod', { abs: 1e-6, rel: 1e-4 }, (b) => ft(b, near1).cumprod(-1), () => ex(O.alongDim(near1, -1, O.cumprod))));
    const one = randF(rng, [3000], 0, 1);
    out.push(value('cumsum 1-D [3000]', 'cumsum', accTol(3000), (b) => ft(b, one).cumsum(0), () => ex(O.alongDim(one, 0, O.cumsum))));
    const many = randF(rng, [600, 3], -1, 1);
    out.push(value('cumsum many short columns [600,3] dim 0', 'cumsum', accTol(600), (b) => ft(b, many).cumsum(0), () => ex(O.alongDim(many, 0, O.cumsum))));
  }
  {
    const t = randF(rng, [5, 3], -2, 2);
    out.push(value('cumsum of a transposed view', 'cumsum', accTol(5), (b) => ft(b, t).transpose().cumsum(1), () => ex(O.alongDim(R.permute(t, [1, 0]), 1, O.cumsum))));
    const z = f32([2, 5], [2, 0, 3, 0, 4, 1.5, -2, NaN, 1, Infinity]);
    out.push(value('cumprod with zeros and NaN', 'cumprod', { abs: 0, rel: 1e-6 }, (b) => ft(b, z).cumprod(1), () => ex(O.alongDim(z, 1, O.cumprod))));
    out.push(value('cumsum with inf and NaN', 'cumsum', EXACT, (b) => ft(b, z).cumsum(1), () => ex(O.alongDim(z, 1, O.cumsum))));
    out.push(value('cumsum rank-0', 'cumsum', EXACT, (b) => ft(b, f32([], [2.5])).cumsum(0), () => ex(f32([], [2.5]))));
    out.push(value('cumsum empty dim', 'cumsum', EXACT, (b) => ft(b, { shape: [2, 0], data: [] }).cumsum(1), () => ex({ shape: [2, 0], data: [] })));
  }
  {
    const i = randI(rng, [3, 6], -100, 100);
    out.push(value('cumsum int32 dim 1', 'cumsum', EXACT, (b) => it(b, i).cumsum(1), () => ex(O.alongDim(i, 1, O.cumsum), 'int32')));
    const w = R.arr([4], [2 ** 31 - 1, 1, 5, -3]);
    out.push(value('cumsum int32 wraps', 'cumsum', EXACT, (b) => it(b, w).cumsum(0), () => ex(O.alongDim(w, 0, (l) => O.cumsum(l).map((v) => R.wrap(BigInt(v)))), 'int32')));
    const q = R.arr([5], [1000, 1000, 1000, 7, -3]);
    out.push(value('cumprod int32 wraps', 'cumprod', EXACT, (b) => it(b, q).cumprod(0), () => ex(O.alongDim(q, 0, (l) => { let acc = 1n; return l.map((v) => R.wrap((acc = BigInt.asIntN(32, acc * BigInt(v))))); }), 'int32')));
    const long = randI(rng, [2, 500], -5, 5);
    out.push(value('cumsum int32 long rows [2,500]', 'cumsum', EXACT, (b) => it(b, long).cumsum(1), () => ex(O.alongDim(long, 1, O.cumsum), 'int32')));
  }
}

/** Reference flip / roll through index maps. */
function remap(a: R.Arr, src: (idx: number[]) => number[]): R.Arr {
  return { shape: [...a.shape], data: a.data.map((_, i) => R.get(a, src(R.unravel(i, a.shape)))) };
}

function flipRoll(out: Case[]): void {
  const rng = new Rng('flip');
  const a = randF(rng, [2, 3, 4]);
  const flipRef = (x: R.Arr, dims: number[]) => remap(x, (idx) => idx.map((v, d) => (dims.includes(d) ? R.at(x.shape, d) - 1 - v : v)));
  for (const dims of [[0], [1, 2], [-1], [0, 1, 2], []]) {
    const nd = dims.map((d) => (d < 0 ? d + 3 : d));
    out.push(value(`flip dims [${dims.join(', ')}]`, 'flip', EXACT, (b) => ft(b, a).flip(dims), () => ex(flipRef(a, nd))));
  }
  const i = randI(rng, [3, 5]);
  out.push(value('flip int32 dim 1', 'flip', EXACT, (b) => it(b, i).flip(1), () => ex(flipRef(i, [1]), 'int32')));
  const bo = randB(rng, [4, 3]);
  out.push(value('flip bool dims [0, 1]', 'flip', EXACT, (b) => bt(b, bo).flip([0, 1]), () => ex(flipRef(bo, [0, 1]), 'bool')));
  out.push(value('flip a permuted view', 'flip', EXACT, (b) => ft(b, a).permute([2, 0, 1]).flip([0, 2]), () => ex(flipRef(R.permute(a, [2, 0, 1]), [0, 2]))));

  const rollRef = (x: R.Arr, shifts: number[], dims: number[]) =>
    remap(x, (idx) => {
      const src = [...idx];
      dims.forEach((d, k) => {
        const n = R.at(x.shape, d);
        src[d] = (((R.at(src, d) - R.at(shifts, k)) % n) + n) % n;
      });
      return src;
    });
  const configs: ReadonlyArray<readonly [number[], number[]]> = [
    [[1], [0]],
    [[2, -1], [1, 2]],
    [[7], [-1]],
    [[-5], [1]],
    [[1, 1], [2, 2]],
    [[0], [0]],
  ];
  for (const [shifts, dims] of configs) {
    const nd = dims.map((d) => (d < 0 ? d + 3 : d));
    out.push(value(`roll shifts [${shifts.join(', ')}] dims [${dims.join(', ')}]`, 'roll', EXACT, (b) => ft(b, a).roll(shifts, dims), () => ex(rollRef(a, shifts, nd))));
  }
  {
    const flat = R.reshape(a, [24]);
    out.push(value('roll without dims (flattened) by 5', 'roll', EXACT, (b) => ft(b, a).roll(5), () => ex(R.reshape(rollRef(flat, [5], [0]), [2, 3, 4]))));
    out.push(value('roll int32 of a transposed view', 'roll', EXACT, (b) => it(b, i).transpose().roll(-2, 1), () => ex(rollRef(R.permute(i, [1, 0]), [-2], [1]), 'int32')));
  }
}

function triangles(out: Case[]): void {
  const rng = new Rng('tri');
  const a = randF(rng, [4, 5]);
  const tri = (x: R.Arr, k: number, lower: boolean): R.Arr => ({
    shape: [...x.shape],
    data: x.data.map((v, i) => {
      const idx = R.unravel(i, x.shape);
      const row = R.at(idx, idx.length - 2);
      const col = R.at(idx, idx.length - 1);
      return (lower ? col - row <= k : col - row >= k) ? v : 0;
    }),
  });
  // Offsets past the int32 range are the same triangles as any past the matrix (kernels take an i32).
  for (const k of [0, 1, -2, 10, -10, 2 ** 31, -(2 ** 31) - 1, 2 ** 32, -(2 ** 32)]) {
    out.push(value(`tril [4,5] diagonal ${k}`, 'tril', EXACT, (b) => ft(b, a).tril(k), () => ex(tri(a, k, true))));
    out.push(value(`triu [4,5] diagonal ${k}`, 'triu', EXACT, (b) => ft(b, a).triu(k), () => ex(tri(a, k, false))));
  }
  const batch = randF(rng, [2, 3, 4]);
  out.push(value('tril batched [2,3,4]', 'tril', EXACT, (b) => ft(b, batch).tril(), () => ex(tri(batch, 0, true))));
  out.push(value('triu of a transposed view [4,3]', 'triu', EXACT, (b) => ft(b, batch).swapDims(1, 2).triu(-1), () => ex(tri(R.permute(batch, [0, 2, 1]), -1, false))));
  const i = randI(rng, [3, 3]);
  out.push(value('tril int32', 'tril', EXACT, (b) => it(b, i).tril(), () => ex(tri(i, 0, true), 'int32')));
  const bo = randB(rng, [3, 4], 0.8);
  out.push(value('triu bool', 'triu', EXACT, (b) => bt(b, bo).triu(1), () => ex(tri(bo, 1, false), 'bool')));
  const nan = f32([2, 2], [NaN, NaN, NaN, NaN]);
  out.push(value('tril zeros NaN above the diagonal', 'tril', EXACT, (b) => ft(b, nan).tril(), () => ex(f32([2, 2], [NaN, 0, NaN, NaN]))));
}

function sorting(out: Case[]): void {
  const rng = new Rng('sort');
  const cases: ReadonlyArray<readonly [string, R.Arr, DType]> = [
    ['[4,9] random', randF(rng, [4, 9]), 'float32'],
    ['[3,10] ties, NaN, inf, -0', f32([3, 10], [1, NaN, -Infinity, 0, -0, 2, 2, NaN, Infinity, 1, 3, 3, 3, 3, 3, 1, 1, 1, 1, 1, NaN, NaN, -1, 0.5, -1, 0.5, Infinity, -Infinity, 0, 0]), 'float32'],
    ['int32 [5,6] with ties', randI(rng, [5, 6], -3, 3), 'int32'],
  ];
  const both = (a: R.Arr, dim: number, desc: boolean, dtype: DType) => {
    const order = O.mapLines(a, dim, R.at(a.shape, dim < 0 ? dim + a.shape.length : dim), (l) => O.sortOrder(l, desc));
    const vals = O.mapLines(a, dim, R.at(a.shape, dim < 0 ? dim + a.shape.length : dim), (l) => O.sortOrder(l, desc).map((j) => R.at(l, j)));
    return [ex(vals, dtype), ex(order, 'int32')];
  };
  for (const [label, a, dtype] of cases) {
    for (const desc of [false, true]) {
      for (const dim of [-1, 0]) {
        const name = `sort ${label} dim ${dim}${desc ? ' descending' : ''}`;
        out.push(
          value(name, 'sort', EXACT, (b) => {
            const r = tensor(b, a, dtype).sort(dim, desc);
            return [r.values, r.indices];
          }, () => both(a, dim, desc, dtype)),
        );
      }
    }
  }
  // Line lengths around the shared-memory limit (1024) and well past it (staged passes on the GPU).
  for (const n of [1, 2, 1000, 1024, 1025, 3000]) {
    const a = randWith(new Rng(`sort ${n}`), [2, n], (r) => (r.next() < 0.1 ? r.pick([NaN, 0.5, -0.5]) : r.float(-5, 5)));
    for (const desc of [false, true]) {
      out.push(value(`argsort [2,${n}]${desc ? ' descending' : ''}`, 'argsort', EXACT, (b) => ft(b, a).argsort(-1, desc), () => ex(O.mapLines(a, 1, n, (l) => O.sortOrder(l, desc)), 'int32')));
    }
  }
  {
    const a = randI(new Rng('argsort int long'), [3000], -50, 50);
    out.push(value('argsort int32 [3000] (many ties, stable)', 'argsort', EXACT, (b) => it(b, a).argsort(0), () => ex(O.mapLines(a, 0, 3000, (l) => O.sortOrder(l, false)), 'int32')));
    const t = randF(new Rng('argsort view'), [6, 4]);
    out.push(value('argsort of a transposed view dim 1', 'argsort', EXACT, (b) => ft(b, t).transpose().argsort(1), () => ex(O.mapLines(R.permute(t, [1, 0]), 1, 6, (l) => O.sortOrder(l, false)), 'int32')));
    out.push(value('argsort rank-0', 'argsort', EXACT, (b) => ft(b, f32([], [3])).argsort(), () => ex(R.arr([], [0]), 'int32')));
  }
  const top = (a: R.Arr, k: number, dim: number, largest: boolean, dtype: DType) => {
    const d = dim < 0 ? dim + a.shape.length : dim;
    return [
      ex(O.mapLines(a, d, k, (l) => O.sortOrder(l, largest).slice(0, k).map((j) => R.at(l, j))), dtype),
      ex(O.mapLines(a, d, k, (l) => O.sortOrder(l, largest).slice(0, k)), 'int32'),
    ];
  };
  const ta = f32([3, 8], [5, 1, NaN, 3, 3, -Infinity, 2, 0, 1, 1, 1, 1, 1, 1, 1, 1, -1, 4, 2, 8, -3, 6, 6, 0]);
  const tb = randF(rng, [5, 4, 3]);
  const tops: ReadonlyArray<readonly [string, R.Arr, number, number, boolean]> = [
    ['[3,8] k 3 (NaN is the largest)', ta, 3, -1, true],
    ['[3,8] k 3 smallest', ta, 3, -1, false],
    ['[3,8] k 8', ta, 8, 1, true],
    ['[3,8] k 0', ta, 0, 1, true],
    ['[5,4,3] k 2 dim 0', tb, 2, 0, true],
    ['[5,4,3] k 1 dim 1 smallest', tb, 1, 1, false],
  ];
  for (const [label, a, k, dim, largest] of tops) {
    out.push(
      value(`topk ${label}`, 'topk', EXACT, (b) => {
        const r = ft(b, a).topk(k, dim, largest);
        return [r.values, r.indices];
      }, () => top(a, k, dim, largest, 'float32')),
    );
  }
  {
    const i = randI(rng, [4, 7], -3, 3);
    out.push(
      value('topk int32 k 3', 'topk', EXACT, (b) => {
        const r = it(b, i).topk(3);
        return [r.values, r.indices];
      }, () => top(i, 3, -1, true, 'int32')),
    );
    // Few of many (a bounded heap on the CPU), with ties and NaN.
    const many = randWith(new Rng('topk many'), [4, 200], (r) => (r.next() < 0.05 ? NaN : r.int(-5, 5)));
    for (const largest of [true, false]) {
      out.push(
        value(`topk [4,200] ties and NaN k 7${largest ? '' : ' smallest'}`, 'topk', EXACT, (b) => {
          const r = ft(b, many).topk(7, 1, largest);
          return [r.values, r.indices];
        }, () => top(many, 7, 1, largest, 'float32')),
      );
    }
    const manyI = randI(new Rng('topk many int'), [3, 500], -20, 20);
    out.push(value('argtopk int32 [3,500] k 4 dim 1', 'argtopk', EXACT, (b) => it(b, manyI).argtopk(4, 1), () => top(manyI, 4, 1, true, 'int32')[1]!));
    out.push(value('argtopk [5,4,3] k 2 dim 0 smallest', 'argtopk', EXACT, (b) => ft(b, tb).argtopk(2, 0, false), () => top(tb, 2, 0, false, 'float32')[1]!));
    const longLines = randF(new Rng('topk long'), [2, 3000]);
    out.push(
      value('topk [2,3000] k 10 smallest', 'topk', EXACT, (b) => {
        const r = ft(b, longLines).topk(10, -1, false);
        return [r.values, r.indices];
      }, () => top(longLines, 10, -1, false, 'float32')),
    );
    const s0 = f32([], [2.5]);
    out.push(
      value('topk rank-0 k 1', 'topk', EXACT, (b) => {
        const r = ft(b, s0).topk(1);
        return [r.values, r.indices];
      }, () => [ex(s0), ex(R.arr([], [0]), 'int32')]),
    );
    const big = randF(rng, [2, 2000]);
    out.push(
      value('topk [2,2000] k 5', 'topk', EXACT, (b) => {
        const r = ft(b, big).topk(5);
        return [r.values, r.indices];
      }, () => top(big, 5, -1, true, 'float32')),
    );
  }
}

export function orderingCases(): Case[] {
  const out: Case[] = [];
  scans(out);
  flipRoll(out);
  triangles(out);
  sorting(out);
  return out;
}
