/** Movement and indexing: reshape, flatten, squeeze, permute, expand, slice, cat, stack, split, repeat, gather, scatterAdd, indexSelect. */
import type { Backend } from '../../../src/backends/backend.js';
import type { DType } from '../../../src/ir/dtype.js';
import type { SliceSpec } from '../../../src/ir/shape.js';
import { Tensor } from '../../../src/tensor/tensor.js';
import { EXACT, fmtShape, type Tol } from '../harness.js';
import * as R from '../ref.js';
import type { Arr, PySlice } from '../ref.js';
import { Rng } from '../rng.js';
import { bt, ex, ft, it, randB, randF, randI, value, type Case, type FT } from './util.js';

/** An input of any dtype on a backend (float/int/bool share every movement op). */
function tensorOf(b: Backend, a: Arr, dtype: DType): Tensor<Backend> {
  return dtype === 'float32' ? ft(b, a) : dtype === 'int32' ? it(b, a) : bt(b, a);
}

function randOf(rng: Rng, shape: readonly number[], dtype: DType): Arr {
  return dtype === 'float32' ? randF(rng, shape, -5, 5) : dtype === 'int32' ? randI(rng, shape) : randB(rng, shape);
}

function suffix(dtype: DType): string {
  return dtype === 'float32' ? '' : ` ${dtype}`;
}

/** One movement case: `call` through the API, `ref` through the reference, on a random input of `shape`. */
function mv(out: Case[], name: string, op: string, shape: readonly number[], call: (x: Tensor<Backend>) => Tensor<Backend> | readonly Tensor<Backend>[], ref: (a: Arr) => Arr | readonly Arr[], dtype: DType = 'float32'): void {
  const full = `${name}${suffix(dtype)}`;
  const a = randOf(new Rng(full), shape, dtype);
  out.push(
    value(full, op, EXACT, (b) => call(tensorOf(b, a, dtype)), () => {
      const r = ref(a);
      return 'shape' in r ? ex(r as Arr, dtype) : (r as readonly Arr[]).map((x) => ex(x, dtype));
    }),
  );
}

/** Converts the reference slice spec to the API's spec (the two are written independently). */
function toApi(specs: readonly PySlice[]): SliceSpec[] {
  return specs.map((s) => {
    if (typeof s === 'number') return s;
    if (s.step === undefined) return [s.start ?? null, s.stop ?? null] as const;
    const o: { start?: number; end?: number; step?: number } = { step: s.step };
    if (s.start !== undefined && s.start !== null) o.start = s.start;
    if (s.stop !== undefined && s.stop !== null) o.end = s.stop;
    return o;
  });
}

function movement(out: Case[]): void {
  for (const dtype of ['float32', 'int32', 'bool'] as const) {
    mv(out, 'reshape [2,3,4] to [4,-1]', 'reshape', [2, 3, 4], (x) => x.reshape([4, -1]), (a) => R.reshape(a, [4, 6]), dtype);
    mv(out, 'permute [2,3,4] dims [2,0,1]', 'permute', [2, 3, 4], (x) => x.permute([2, 0, 1]), (a) => R.permute(a, [2, 0, 1]), dtype);
    mv(out, 'expand [3,1] to [2,3,4]', 'expand', [3, 1], (x) => x.expand([2, 3, 4]), (a) => R.broadcastTo(a, [2, 3, 4]), dtype);
    mv(out, 'cat-self [2,3] twice dim 1', 'cat', [2, 3], (x) => Tensor.cat([x, x], 1), (a) => R.cat([a, a], 1), dtype);
    mv(out, 'slice [5,6] step 2 and negative start', 'slice', [5, 6], (x) => x.slice([{ step: 2 }, [-4, null]]), (a) => R.slice(a, [{ step: 2 }, { start: -4 }]), dtype);
    mv(out, 'clone', 'copy', [3, 4], (x) => x.clone(), (a) => a, dtype);
    mv(out, 'clone of a permuted view', 'copy', [3, 4], (x) => x.permute([1, 0]).clone(), (a) => R.permute(a, [1, 0]), dtype);
  }
  mv(out, 'reshape [2,3,4] to [-1]', 'reshape', [2, 3, 4], (x) => x.reshape([-1]), (a) => R.reshape(a, [24]));
  mv(out, 'reshape [2,3,4] to [3,2,2,2]', 'reshape', [2, 3, 4], (x) => x.reshape([3, 2, 2, 2]), (a) => R.reshape(a, [3, 2, 2, 2]));
  mv(out, 'reshape [6] to [1,-1,1]', 'reshape', [6], (x) => x.reshape([1, -1, 1]), (a) => R.reshape(a, [1, 6, 1]));
  mv(out, 'reshape rank-0 to [1,1]', 'reshape', [], (x) => x.reshape([1, 1]), (a) => R.reshape(a, [1, 1]));
  mv(out, 'reshape [1] to rank-0', 'reshape', [1], (x) => x.reshape([]), (a) => R.reshape(a, []));
  mv(out, 'reshape of a permuted view', 'reshape', [3, 4], (x) => x.permute([1, 0]).reshape([2, 6]), (a) => R.reshape(R.permute(a, [1, 0]), [2, 6]));
  mv(out, 'flatten [2,3,4]', 'flatten', [2, 3, 4], (x) => x.flatten(), (a) => R.reshape(a, [24]));
  mv(out, 'flatten [2,3,4] from dim 1', 'flatten', [2, 3, 4], (x) => x.flatten(1), (a) => R.reshape(a, [2, 12]));
  mv(out, 'flatten [2,3,4] dims 0..1', 'flatten', [2, 3, 4], (x) => x.flatten(0, 1), (a) => R.reshape(a, [6, 4]));
  mv(out, 'flatten rank-0', 'flatten', [], (x) => x.flatten(), (a) => R.reshape(a, [1]));
  mv(out, 'squeeze [1,3,1,2] all', 'squeeze', [1, 3, 1, 2], (x) => x.squeeze(), (a) => R.reshape(a, [3, 2]));
  mv(out, 'squeeze [1,3,1,2] dim 2', 'squeeze', [1, 3, 1, 2], (x) => x.squeeze(2), (a) => R.reshape(a, [1, 3, 2]));
  mv(out, 'squeeze [1,3,1,2] dim 1 (not size 1: no-op)', 'squeeze', [1, 3, 1, 2], (x) => x.squeeze(1), (a) => a);
  mv(out, 'squeeze [1,3,1,2] dim -4', 'squeeze', [1, 3, 1, 2], (x) => x.squeeze(-4), (a) => R.reshape(a, [3, 1, 2]));
  mv(out, 'unsqueeze [3,2] dim 0', 'unsqueeze', [3, 2], (x) => x.unsqueeze(0), (a) => R.reshape(a, [1, 3, 2]));
  mv(out, 'unsqueeze [3,2] dim 1', 'unsqueeze', [3, 2], (x) => x.unsqueeze(1), (a) => R.reshape(a, [3, 1, 2]));
  mv(out, 'unsqueeze [3,2] dim -1', 'unsqueeze', [3, 2], (x) => x.unsqueeze(-1), (a) => R.reshape(a, [3, 2, 1]));
  mv(out, 'unsqueeze rank-0', 'unsqueeze', [], (x) => x.unsqueeze(0), (a) => R.reshape(a, [1]));
  mv(out, 'permute [2,3,4] dims [1,0,2]', 'permute', [2, 3, 4], (x) => x.permute([1, 0, 2]), (a) => R.permute(a, [1, 0, 2]));
  mv(out, 'permute [2,3,4,5] dims [3,1,0,2]', 'permute', [2, 3, 4, 5], (x) => x.permute([3, 1, 0, 2]), (a) => R.permute(a, [3, 1, 0, 2]));
  mv(out, 'permute negative dims [-1,0,1]', 'permute', [2, 3, 4], (x) => x.permute([-1, 0, 1]), (a) => R.permute(a, [2, 0, 1]));
  mv(out, 'permute twice [1,2,0] then [2,0,1]', 'permute', [2, 3, 4], (x) => x.permute([1, 2, 0]).permute([2, 0, 1]), (a) => a);
  mv(out, 'transpose [3,4]', 'transpose', [3, 4], (x) => x.transpose(), (a) => R.permute(a, [1, 0]));
  mv(out, 'transpose [2,3,4]', 'transpose', [2, 3, 4], (x) => x.transpose(), (a) => R.permute(a, [0, 2, 1]));
  mv(out, 'transpose rank-1', 'transpose', [5], (x) => x.transpose(), (a) => a);
  mv(out, 'swapDims [2,3,4] (0,2)', 'swapDims', [2, 3, 4], (x) => x.swapDims(0, 2), (a) => R.permute(a, [2, 1, 0]));
  mv(out, 'swapDims [2,3,4] (-1,0)', 'swapDims', [2, 3, 4], (x) => x.swapDims(-1, 0), (a) => R.permute(a, [2, 1, 0]));
  mv(out, 'expand [3,1] to [3,4]', 'expand', [3, 1], (x) => x.expand([3, 4]), (a) => R.broadcastTo(a, [3, 4]));
  mv(out, 'expand [3] to [2,4,3]', 'expand', [3], (x) => x.expand([2, 4, 3]), (a) => R.broadcastTo(a, [2, 4, 3]));
  mv(out, 'expand [3,1] to [2,-1,5]', 'expand', [3, 1], (x) => x.expand([2, -1, 5]), (a) => R.broadcastTo(a, [2, 3, 5]));
  mv(out, 'expand rank-0 to [2,2]', 'expand', [], (x) => x.expand([2, 2]), (a) => R.broadcastTo(a, [2, 2]));
  mv(out, 'expand [1,3] to [0,3]', 'expand', [1, 3], (x) => x.expand([0, 3]), () => ({ shape: [0, 3], data: [] }));
}

function slicing(out: Case[]): void {
  const sl = (name: string, shape: readonly number[], specs: readonly PySlice[]) =>
    mv(out, `slice ${fmtShape(shape)} ${name}`, 'slice', shape, (x) => x.slice(toApi(specs)), (a) => R.slice(a, specs));
  sl('ranges [1,4) x [2,end)', [5, 6], [{ start: 1, stop: 4 }, { start: 2 }]);
  sl('negative [-3,end) x [0,-1)', [5, 6], [{ start: -3 }, { stop: -1 }]);
  sl('steps 2 and 3', [5, 6], [{ start: 0, stop: 5, step: 2 }, { step: 3 }]);
  sl('step 2 from 1 with negative end', [7, 4], [{ start: 1, stop: -1, step: 2 }]);
  sl('an index keeps the dim', [5, 6], [2]);
  sl('a negative index', [5, 6], [{}, -1]);
  sl('3-D index, step, negative range', [3, 5, 4], [1, { start: 1, step: 2 }, { start: -2 }]);
  sl('out-of-range bounds clamp', [5, 6], [{ start: 2, stop: 100 }, { start: -100, stop: 3 }]);
  sl('empty range', [5, 6], [{ start: 3, stop: 3 }]);
  sl('start after end is empty', [5, 6], [{}, { start: 4, stop: 2 }]);
  sl('fewer ranges than dims', [4, 3, 2], [{ start: 1, stop: 3 }]);
  sl('step larger than the dim', [5, 6], [{ step: 10 }, { start: 1, step: 4 }]);
  mv(out, 'slice of a slice', 'slice', [8, 6], (x) => x.slice([{ start: 1, step: 2 }]).slice([[1, null], { step: 2 }]), (a) => R.slice(R.slice(a, [{ start: 1, step: 2 }]), [{ start: 1 }, { step: 2 }]));
  mv(out, 'narrow dim 0 (1, 2)', 'narrow', [4, 5], (x) => x.narrow(0, 1, 2), (a) => R.slice(a, [{ start: 1, stop: 3 }]));
  mv(out, 'narrow dim 1 negative start (-3, 2)', 'narrow', [4, 5], (x) => x.narrow(1, -3, 2), (a) => R.slice(a, [{}, { start: 2, stop: 4 }]));
  mv(out, 'narrow dim -1 length 0', 'narrow', [4, 5], (x) => x.narrow(-1, 2, 0), (a) => R.slice(a, [{}, { start: 2, stop: 2 }]));

  const sa = (name: string, shape: readonly number[], specs: readonly PySlice[], dtype: DType = 'float32') => {
    const full = `sliceAssign ${fmtShape(shape)} ${name}${suffix(dtype)}`;
    const rng = new Rng(full);
    const a = randOf(rng, shape, dtype);
    const vShape = R.sliceIndices(shape, specs).map((p) => p.length);
    const v = randOf(rng, vShape, dtype);
    out.push(value(full, 'sliceAssign', EXACT, (b) => tensorOf(b, a, dtype).sliceAssign(toApi(specs), tensorOf(b, v, dtype)), () => ex(R.sliceAssign(a, specs, v), dtype)));
  };
  sa('region [1,3) x [2,5)', [4, 6], [{ start: 1, stop: 3 }, { start: 2, stop: 5 }]);
  sa('stepped rows', [5, 3], [{ step: 2 }]);
  sa('negative ranges and an index', [4, 6], [-1, { start: -4, stop: -1 }]);
  sa('3-D stepped', [3, 4, 5], [{ start: 1 }, { step: 3 }, { start: 1, step: 2 }]);
  sa('region', [4, 6], [{ start: 1, stop: 3 }, { start: 2, stop: 5 }], 'int32');
  sa('region', [4, 6], [{ start: 1, stop: 3 }, { start: 2, stop: 5 }], 'bool');
  sa('empty region', [4, 6], [{ start: 2, stop: 2 }]);
}

function joining(out: Case[]): void {
  const catCase = (name: string, shapes: ReadonlyArray<readonly number[]>, dim: number, dtype: DType = 'float32') => {
    const full = `cat ${name}${suffix(dtype)}`;
    const rng = new Rng(full);
    const parts = shapes.map((s) => randOf(rng, s, dtype));
    out.push(value(full, 'cat', EXACT, (b) => Tensor.cat(parts.map((p) => tensorOf(b, p, dtype)), dim), () => ex(R.cat(parts, dim), dtype)));
  };
  catCase('[2,3]+[4,3] dim 0', [[2, 3], [4, 3]], 0);
  catCase('[2,3]+[2,5]+[2,1] dim 1', [[2, 3], [2, 5], [2, 1]], 1);
  catCase('3-D dim -1', [[2, 3, 1], [2, 3, 4]], -1);
  catCase('3-D dim 1', [[2, 1, 3], [2, 4, 3]], 1);
  catCase('with an empty piece', [[2, 3], [0, 3], [1, 3]], 0);
  catCase('with an empty piece dim 1', [[2, 2], [2, 0]], 1);
  catCase('one tensor', [[3, 2]], 0);
  catCase('1-D pieces', [[3], [1], [4]], 0);
  catCase('[2,3]+[1,3]', [[2, 3], [1, 3]], 0, 'int32');
  catCase('[2,3]+[1,3]', [[2, 3], [1, 3]], 0, 'bool');
  // Views as pieces: a row slice (contiguous, at an offset) and a transpose (strided).
  {
    const full = 'cat of a row slice and a transpose dim 1';
    const rng = new Rng(full);
    const a = randOf(rng, [5, 3], 'float32');
    const c = randOf(rng, [2, 3], 'float32');
    out.push(
      value(full, 'cat', EXACT, (b) => Tensor.cat([tensorOf(b, a, 'float32').slice([[2, 5]]), tensorOf(b, c, 'float32').transpose(), tensorOf(b, a, 'float32').slice([[1, 4]])], 1),
        () => ex(R.cat([R.slice(a, [{ start: 2, stop: 5 }]), R.permute(c, [1, 0]), R.slice(a, [{ start: 1, stop: 4 }])], 1), 'float32')),
    );
  }

  const stackCase = (name: string, shape: readonly number[], n: number, dim: number, dtype: DType = 'float32') => {
    const full = `stack ${name}${suffix(dtype)}`;
    const rng = new Rng(full);
    const parts = Array.from({ length: n }, () => randOf(rng, shape, dtype));
    out.push(value(full, 'stack', EXACT, (b) => Tensor.stack(parts.map((p) => tensorOf(b, p, dtype)), dim), () => ex(R.stack(parts, dim), dtype)));
  };
  stackCase('3x[2,3] dim 0', [2, 3], 3, 0);
  stackCase('3x[2,3] dim 1', [2, 3], 3, 1);
  stackCase('3x[2,3] dim -1', [2, 3], 3, -1);
  stackCase('rank-0 pieces', [], 4, 0);
  stackCase('2x[3] dim 1', [3], 2, 1, 'int32');

  const pieces = (a: Arr, dim: number, sizes: readonly number[]) => {
    let at = 0;
    return sizes.map((s) => {
      const specs: PySlice[] = a.shape.map(() => ({}));
      specs[dim] = { start: at, stop: at + s };
      at += s;
      return R.slice(a, specs);
    });
  };
  mv(out, 'split [7,2] size 3', 'split', [7, 2], (x) => x.split(3), (a) => pieces(a, 0, [3, 3, 1]));
  mv(out, 'split [7,2] sizes [2,5]', 'split', [7, 2], (x) => x.split([2, 5]), (a) => pieces(a, 0, [2, 5]));
  mv(out, 'split [3,5] size 2 dim 1', 'split', [3, 5], (x) => x.split(2, 1), (a) => pieces(a, 1, [2, 2, 1]));
  mv(out, 'split [3,5] sizes [0,5,0] dim -1', 'split', [3, 5], (x) => x.split([0, 5, 0], -1), (a) => pieces(a, 1, [0, 5, 0]));
  mv(out, 'chunk [7] into 3', 'chunk', [7], (x) => x.chunk(3), (a) => pieces(a, 0, [3, 3, 1]));
  mv(out, 'chunk [6,4] into 2 dim 1', 'chunk', [6, 4], (x) => x.chunk(2, 1), (a) => pieces(a, 1, [2, 2]));
  mv(out, 'chunk [5] into 4 (gives 3 pieces)', 'chunk', [5], (x) => x.chunk(4), (a) => pieces(a, 0, [2, 2, 1]));
  mv(out, 'split then add pieces', 'split', [4, 3], (x) => {
    const [p, q] = x.split(2);
    return (p as FT).add(q as FT);
  }, (a) => {
    const [p, q] = pieces(a, 0, [2, 2]);
    return R.map([p!, q!], (u, v) => u + v);
  });

  mv(out, 'repeat [2,2] by [2,3]', 'repeat', [2, 2], (x) => x.repeat([2, 3]), (a) => R.repeat(a, [2, 3]));
  mv(out, 'repeat [3] by [2,2] (new leading dim)', 'repeat', [3], (x) => x.repeat([2, 2]), (a) => R.repeat(a, [2, 2]));
  mv(out, 'repeat [2,1,3] by [1,4,1]', 'repeat', [2, 1, 3], (x) => x.repeat([1, 4, 1]), (a) => R.repeat(a, [1, 4, 1]));
  mv(out, 'repeat [2,3] by [0,1] (empty)', 'repeat', [2, 3], (x) => x.repeat([0, 1]), (a) => R.repeat(a, [0, 1]));
  mv(out, 'repeat [2,3] by [2,1]', 'repeat', [2, 3], (x) => x.repeat([2, 1]), (a) => R.repeat(a, [2, 1]), 'int32');
}

function indexing(out: Case[]): void {
  const gatherCase = (name: string, shape: readonly number[], dim: number, idxShape: readonly number[], dtype: DType = 'float32') => {
    const full = `gather ${name}${suffix(dtype)}`;
    const rng = new Rng(full);
    const a = randOf(rng, shape, dtype);
    const d = dim < 0 ? dim + shape.length : dim;
    const idx = randI(rng, idxShape, 0, R.at(shape, d) - 1);
    out.push(value(full, 'gather', EXACT, (b) => tensorOf(b, a, dtype).gather(dim, it(b, idx)), () => ex(R.gather(a, d, idx), dtype)));
  };
  gatherCase('[3,4] dim 0 index [2,4]', [3, 4], 0, [2, 4]);
  gatherCase('[3,4] dim 1 index [3,6]', [3, 4], 1, [3, 6]);
  gatherCase('[3,4] dim 1 index [2,2] (smaller)', [3, 4], 1, [2, 2]);
  gatherCase('[2,3,4] dim 2', [2, 3, 4], 2, [2, 3, 3]);
  gatherCase('[2,3,4] dim -2', [2, 3, 4], -2, [1, 5, 4]);
  gatherCase('[3,4] dim 0', [3, 4], 0, [3, 4], 'int32');
  gatherCase('[3,4] dim 1', [3, 4], 1, [3, 2], 'bool');

  const scatterCase = (name: string, shape: readonly number[], dim: number, idxShape: readonly number[], dtype: 'float32' | 'int32' = 'float32', indices?: readonly number[]) => {
    const full = `scatterAdd ${name}${suffix(dtype)}`;
    const rng = new Rng(full);
    const a = randOf(rng, shape, dtype);
    const idx = indices ? R.arr(idxShape, indices) : randI(rng, idxShape, 0, R.at(shape, dim) - 1);
    const src = randOf(rng, idxShape, dtype);
    const tol: Tol = dtype === 'float32' ? { abs: 1e-6, rel: 1e-6 } : EXACT;
    const combine = dtype === 'int32' ? R.intOps.add : (x: number, y: number) => x + y;
    out.push(
      value(full, 'scatterAdd', tol, (b) => (dtype === 'float32' ? ft(b, a).scatterAdd(dim, it(b, idx), ft(b, src)) : it(b, a).scatterAdd(dim, it(b, idx), it(b, src))), () => ex(R.scatterAdd(a, dim, idx, src, combine), dtype)),
    );
  };
  scatterCase('[3,4] dim 0 duplicate indices', [3, 4], 0, [4, 4]);
  scatterCase('[3,4] dim 1 duplicate indices', [3, 4], 1, [3, 6]);
  scatterCase('[3,4] dim 0 all to one row', [3, 4], 0, [3, 2], 'float32', [1, 1, 1, 1, 1, 1]);
  scatterCase('[2,3,4] dim 2 smaller index', [2, 3, 4], 2, [2, 2, 5]);
  scatterCase('[3,4] dim 0 duplicate indices', [3, 4], 0, [5, 4], 'int32');

  const selectCase = (name: string, shape: readonly number[], dim: number, indices: readonly number[], dtype: DType = 'float32') => {
    const full = `indexSelect ${name}${suffix(dtype)}`;
    const a = randOf(new Rng(full), shape, dtype);
    const d = dim < 0 ? dim + shape.length : dim;
    out.push(value(full, 'indexSelect', EXACT, (b) => tensorOf(b, a, dtype).indexSelect(dim, it(b, R.arr([indices.length], indices))), () => ex(R.indexSelect(a, d, indices), dtype)));
  };
  selectCase('[4,3] dim 0 with repeats', [4, 3], 0, [2, 0, 2, 1, 3]);
  selectCase('[4,3] dim 1', [4, 3], 1, [2, 0]);
  selectCase('[2,3,4] dim -1', [2, 3, 4], -1, [3, 3, 0]);
  selectCase('[4,3] dim 0 no indices', [4, 3], 0, []);
  selectCase('[4,3] dim 0', [4, 3], 0, [3, 1], 'int32');
}

export function shapeCases(): Case[] {
  const out: Case[] = [];
  movement(out);
  slicing(out);
  joining(out);
  indexing(out);
  return out;
}
