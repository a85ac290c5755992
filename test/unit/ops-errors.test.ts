/** Bad input to the rounding / activation / reduction / ordering / padding / attention ops: typed errors that name the op and the shapes. */
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError, ShapeError, eye, fromData, linspace, scaledDotProductAttention, zeros } from '../../src/index.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

/** The error `fn` throws (fails the test when it throws nothing). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected an error');
}

function expectError(fn: () => unknown, type: new (...args: never[]) => Error, op: string, text: RegExp): void {
  const e = thrown(fn);
  expect(e).toBeInstanceOf(type);
  expect((e as { op?: string }).op).toBe(op);
  expect(e.message).toMatch(text);
}

describe('elementwise parameters and dtypes', () => {
  const x = zeros(cpu, [2, 3]);
  const i = zeros(cpu, [2], { dtype: 'int32' });
  test('round decimals, activation parameters', () => {
    expectError(() => x.round(1.5), ArgumentError, 'round', /decimals must be an integer/);
    expectError(() => x.softplus(0), ArgumentError, 'softplus', /beta/);
    expectError(() => x.leakyRelu(NaN), ArgumentError, 'leakyRelu', /negativeSlope/);
    expectError(() => x.elu(Infinity), ArgumentError, 'elu', /alpha/);
  });
  test('float-only ops reject int32, binary ops reject mixed dtypes', () => {
    expectError(() => (i as never as typeof x).tan(), DTypeError, 'tan', /int32.*not supported/);
    expectError(() => (i as never as typeof x).silu(), DTypeError, 'silu', /int32/);
    expectError(() => x.atan2(zeros(cpu, [3], { dtype: 'int32' }) as never), DTypeError, 'atan2', /different dtypes/);
    expectError(() => x.hypot(zeros(cpu, [4])), ShapeError, 'hypot', /not broadcastable.*\[2, 3\], \[4\]/);
  });
});

describe('reductions', () => {
  const x = zeros(cpu, [2, 3, 4]);
  test('repeated or out-of-range dims', () => {
    expectError(() => x.sum([0, 0]), ShapeError, 'sum', /dim 0 appears more than once.*\[2, 3, 4\]/);
    expectError(() => x.mean([1, 3]), ShapeError, 'mean', /dim 3 is out of range.*rank 3/);
    expectError(() => x.var(5), ShapeError, 'var', /out of range/);
    expectError(() => x.logsumexp([-4]), ShapeError, 'logsumexp', /out of range/);
    expectError(() => x.any(3), ShapeError, 'any', /out of range/);
  });
  test('bad correction, empty max with indices', () => {
    expectError(() => x.var(null, { correction: NaN }), ArgumentError, 'var', /correction/);
    expectError(() => zeros(cpu, [2, 0]).maxWithIndices(1), ShapeError, 'maxWithIndices', /size 0.*\[2, 0\]/);
    expectError(() => x.minWithIndices(3), ShapeError, 'minWithIndices', /out of range/);
  });
});

describe('scans, orderings, triangles', () => {
  const x = zeros(cpu, [3, 4]);
  const b = fromData(cpu, [true, false]);
  test('cumsum / cumprod', () => {
    expectError(() => (b as never as typeof x).cumsum(0), DTypeError, 'cumsum', /bool.*not supported/);
    expectError(() => x.cumprod(2), ShapeError, 'cumprod', /dim 2 is out of range.*\[3, 4\]/);
  });
  test('flip and roll', () => {
    expectError(() => x.flip([1, -1]), ShapeError, 'flip', /twice/);
    expectError(() => x.flip(2), ShapeError, 'flip', /out of range/);
    expectError(() => x.roll([1, 2], [0]), ArgumentError, 'roll', /2 shifts for 1 dims/);
    expectError(() => x.roll(0.5, 0), ArgumentError, 'roll', /integers/);
    expectError(() => x.roll([1, 2]), ArgumentError, 'roll', /without dims/);
    expectError(() => x.roll(1, 5), ShapeError, 'roll', /out of range/);
  });
  test('tril / triu', () => {
    expectError(() => zeros(cpu, [4]).tril(), ShapeError, 'tril', /rank >= 2.*\[4\]/);
    expectError(() => x.triu(0.5), ArgumentError, 'triu', /diagonal must be an integer/);
  });
  test('sort, argsort, topk', () => {
    expectError(() => (b as never as typeof x).argsort(), DTypeError, 'argsort', /bool/);
    expectError(() => x.sort(2), ShapeError, 'argsort', /out of range/);
    expectError(() => x.topk(5), ShapeError, 'topk', /k = 5 is larger than dim 1 of size 4.*\[3, 4\]/);
    expectError(() => x.topk(-1), ArgumentError, 'topk', /non-negative/);
    expectError(() => x.topk(2, 3), ShapeError, 'topk', /out of range/);
  });
});

describe('reductions, indexing and shape ops beyond the core set', () => {
  const x = zeros(cpu, [3, 4]);
  const i = zeros(cpu, [3, 4], { dtype: 'int32' });
  const b = fromData(cpu, [true, false]);
  const idx = fromData(cpu, Int32Array.from([0, 2]));
  test('shape ops', () => {
    expectError(() => x.tile([-1]), ArgumentError, 'tile', /non-negative integers: \[-1\]/);
    expectError(() => x.tile('2' as never), ArgumentError, 'tile', /reps/);
    expectError(() => x.repeatInterleave(-1), ArgumentError, 'repeatInterleave', /repeats must be an integer >= 0/);
    expectError(() => x.repeatInterleave(2, 2), ShapeError, 'repeatInterleave', /dim 2 is out of range/);
    expectError(() => zeros(cpu, []).unbind(0), ShapeError, 'unbind', /rank 1 or more/);
    expectError(() => x.diagonal(0, 1, -1), ShapeError, 'diagonal', /both dim 1.*\[3, 4\]/);
    expectError(() => zeros(cpu, [4]).diagonal(), ShapeError, 'diagonal', /rank 2 or more, got rank 1/);
    expectError(() => x.diagonal(0.5), ArgumentError, 'diagonal', /offset must be an integer/);
    expectError(() => zeros(cpu, [2, 2, 2]).diag(), ShapeError, 'diag', /1-D or 2-D tensor, got rank 3/);
    expectError(() => x.diagEmbed(0, 0, 3), ShapeError, 'diagEmbed', /dim 3 is out of range/);
    expectError(() => x.outer(zeros(cpu, [4])), ShapeError, 'outer', /two 1-D tensors.*\[3, 4\] and \[4\]/);
    expectError(() => zeros(cpu, [3]).outer({} as never), ArgumentError, 'outer', /must be a tensor/);
  });
  test('reductions and scans', () => {
    expectError(() => (i as never as typeof x).nanmean(), DTypeError, 'nanmean', /int32 is not supported/);
    expectError(() => (b as never as typeof x).nansum(), DTypeError, 'nansum', /bool/);
    expectError(() => x.nansum(2), ShapeError, 'nansum', /out of range/);
    // Checked at the call, under the public op (not the sum / min / mul they are built from).
    expectError(() => x.countNonzero(5), ShapeError, 'countNonzero', /dim 5 is out of range/);
    expectError(() => x.countNonzero([0, -2]), ShapeError, 'countNonzero', /more than once/);
    expectError(() => x.nanmean(-3), ShapeError, 'nanmean', /dim -3 is out of range/);
    expectError(() => x.aminmax(2), ShapeError, 'aminmax', /dim 2 is out of range/);
    expectError(() => zeros(cpu, [2, 0]).medianWithIndices(1), ShapeError, 'median', /dim 1 of size 0.*\[2, 0\]/);
    expectError(() => zeros(cpu, [0]).median(), ShapeError, 'median', /empty/);
    expectError(() => x.medianWithIndices(0, 'yes' as never), ArgumentError, 'median', /keepDims/);
    expectError(() => x.kthvalue(5, 1), ShapeError, 'kthvalue', /k = 5 is out of range for dim 1 of size 4/);
    expectError(() => x.kthvalue(1.5), ArgumentError, 'kthvalue', /k must be an integer/);
    expectError(() => x.mode(2), ShapeError, 'mode', /out of range/);
    expectError(() => (b as never as typeof x).cummax(0), DTypeError, 'cummax', /bool/);
    expectError(() => x.cummin(undefined as never), ArgumentError, 'cummin', /dim must be an integer/);
    expectError(() => (i as never as typeof x).logcumsumexp(0), DTypeError, 'logcumsumexp', /int32/);
    expectError(() => zeros(cpu, [0, 2]).aminmax(), ShapeError, 'aminmax', /empty/);
  });
  test('indexing', () => {
    expectError(() => x.indexAdd(0, idx, zeros(cpu, [3, 4])), ShapeError, 'indexAdd', /dim 0 the index's length.*\[3, 4\], \[2\], \[3, 4\]/);
    expectError(() => x.indexAdd(0, x as never, zeros(cpu, [2, 4])), DTypeError, 'indexAdd', /index must be int32, got float32/);
    expectError(() => x.indexAdd(0, idx, i as never), DTypeError, 'indexAdd', /source is int32, the tensor float32/);
    expectError(() => i.indexAdd(0, zeros(cpu, [1], { dtype: 'int32' }), zeros(cpu, [1, 4], { dtype: 'int32' }), 0.5), DTypeError, 'indexAdd', /non-integer scalar 0.5 with an int32 tensor/);
    expectError(() => x.scatter(1, idx, 1), ShapeError, 'scatter', /one rank/);
    expectError(() => x.scatter(1, zeros(cpu, [4, 1], { dtype: 'int32' }), 1), ShapeError, 'scatter', /larger than/);
    expectError(() => x.scatterReduce(1, i, x, 'max' as never), ArgumentError, 'scatterReduce', /reduce must be 'sum' or 'prod' or 'mean' or 'amax' or 'amin', got "max"/);
    expectError(() => x.scatterReduce(1, i, x, 'sum', 1 as never), ArgumentError, 'scatterReduce', /includeSelf/);
    expectError(() => x.take(x as never), DTypeError, 'take', /int32/);
    expectError(() => x.takeAlongDim(idx, 0), ShapeError, 'takeAlongDim', /rank 2, got 1/);
  });
  test('data-dependent shapes (async: the promise rejects)', async () => {
    await expect(x.maskedSelect(x as never)).rejects.toThrow(/mask must be bool/);
    await expect(x.maskedSelect(fromData(cpu, [true, false, true]))).rejects.toBeInstanceOf(ShapeError);
    await expect(x.unique({ dim: 2 })).rejects.toBeInstanceOf(ShapeError);
    await expect(x.unique('sorted' as never)).rejects.toBeInstanceOf(ArgumentError);
    await expect(x.unique({ returnCounts: 1 as never })).rejects.toThrow(/returnCounts/);
    await expect(x.repeatInterleaveAsync(fromData(cpu, Int32Array.from([1, 2])), 1)).rejects.toThrow(/repeats \[2\] must hold 1 or 4 counts/);
    await expect(x.repeatInterleaveAsync(fromData(cpu, Int32Array.from([1, -1, 0])), 0)).rejects.toThrow(/non-negative, got -1/);
    await expect(x.repeatInterleaveAsync(x as never)).rejects.toBeInstanceOf(DTypeError);
  });
});

describe('creation, pad, oneHot', () => {
  const x = zeros(cpu, [2, 3]);
  test('eye and linspace', () => {
    expectError(() => eye(cpu, -1), ArgumentError, 'eye', /dim -1: dims are integers >= 0/);
    expectError(() => linspace(cpu, 0, 1, -2), ArgumentError, 'linspace', /steps/);
    expectError(() => linspace(cpu, 0, Infinity, 3), ArgumentError, 'linspace', /finite/);
    expectError(() => linspace(cpu, 0, 1, 3, { dtype: 'bool' }), DTypeError, 'linspace', /bools/);
  });
  test('pad', () => {
    expectError(() => x.pad([1]), ArgumentError, 'pad', /pairs/);
    expectError(() => x.pad([1, 1, 1, 1, 1, 1]), ShapeError, 'pad', /3 padded dims for a tensor of rank 2.*\[2, 3\]/);
    expectError(() => x.pad([1, 1], 'mirror' as never), ArgumentError, 'pad', /unknown padding mode 'mirror'.*constant, reflect, replicate, circular/);
    expectError(() => x.pad([3, 0], 'reflect'), ShapeError, 'pad', /reflect padding \(3, 0\) of dim 1 must be smaller than its size 3.*\[2, 3\]/);
    expectError(() => x.pad([0, 0, 0, 3], 'circular'), ShapeError, 'pad', /circular padding \(0, 3\) of dim 0 must be at most its size 2/);
    expectError(() => zeros(cpu, [2, 0]).pad([1, 1], 'replicate'), ShapeError, 'pad', /replicate padding.*size 0/);
    expectError(() => x.pad([-1, 0], 'reflect'), ArgumentError, 'pad', /no negative pads/);
    expectError(() => x.pad([-2, -2]), ShapeError, 'pad', /crop more than the input has/);
    expectError(() => x.pad([0.5, 1]), ArgumentError, 'pad', /integers/);
  });
  test('oneHot', () => {
    const idx = fromData(cpu, Int32Array.from([0, 2]));
    expectError(() => idx.oneHot(0), ArgumentError, 'oneHot', /numClasses/);
    expectError(() => (x as never as typeof idx).oneHot(3), DTypeError, 'oneHot', /int32/);
  });
});

describe('scaledDotProductAttention', () => {
  const q = zeros(cpu, [2, 4, 8]);
  const k = zeros(cpu, [2, 5, 8]);
  const v = zeros(cpu, [2, 5, 3]);
  const op = 'scaledDotProductAttention';
  test('shapes', () => {
    expectError(() => scaledDotProductAttention(q, zeros(cpu, [2, 5, 7]), v), ShapeError, op, /embeddings differ \(8 vs 7\).*\[2, 4, 8\], \[2, 5, 7\]/);
    expectError(() => scaledDotProductAttention(q, k, zeros(cpu, [2, 6, 3])), ShapeError, op, /lengths differ \(5 vs 6\)/);
    expectError(() => scaledDotProductAttention(zeros(cpu, [8]), k, v), ShapeError, op, /rank >= 2/);
    expectError(() => scaledDotProductAttention(q, k, v, { attnMask: fromData(cpu, [[true, false]]) }), ShapeError, op, /mask must broadcast.*\[1, 2\], \[2, 4, 5\]/);
  });
  test('options', () => {
    expectError(() => scaledDotProductAttention(q, k, v, { dropoutP: 1 }), ArgumentError, op, /dropoutP/);
    expectError(() => scaledDotProductAttention(q, k, v, { isCausal: true, attnMask: zeros(cpu, [4, 5]) }), ArgumentError, op, /either attnMask or isCausal/);
  });
});

describe('lerp, addcmul, addcdiv, clamp with tensors, fmax / fmin / fmod, div rounding modes, special functions', () => {
  const x = zeros(cpu, [2, 3]);
  const i = zeros(cpu, [2, 3], { dtype: 'int32' });
  test('shapes that do not broadcast name the op called', () => {
    expectError(() => x.lerp(zeros(cpu, [4]), 0.5), ShapeError, 'lerp', /not broadcastable/);
    expectError(() => x.lerp(x, zeros(cpu, [2, 2])), ShapeError, 'lerp', /not broadcastable/);
    expectError(() => x.addcmul(x, zeros(cpu, [5])), ShapeError, 'addcmul', /not broadcastable/);
    expectError(() => x.addcdiv(zeros(cpu, [3, 3]), x), ShapeError, 'addcdiv', /not broadcastable/);
    expectError(() => x.clamp(zeros(cpu, [4]), 1), ShapeError, 'clamp', /not broadcastable/);
    expectError(() => x.fmax(zeros(cpu, [4])), ShapeError, 'fmax', /not broadcastable/);
    expectError(() => x.div(zeros(cpu, [4]), 'floor'), ShapeError, 'div', /not broadcastable/);
  });
  test('wrong dtypes', () => {
    expectError(() => x.lerp(i as never, 0.5), DTypeError, 'lerp', /float32 and int32/);
    expectError(() => (i as never as typeof x).lerp(i as never, 0.5), DTypeError, 'lerp', /float tensor/);
    expectError(() => (i as never as typeof x).addcdiv(i as never, i as never), DTypeError, 'addcdiv', /float tensor/);
    expectError(() => i.addcmul(i, i, 0.5), DTypeError, 'addcmul', /non-integer scalar 0.5/);
    expectError(() => x.clamp(i as never, null), DTypeError, 'clamp', /float32 and int32/);
    expectError(() => x.div(i as never, 'trunc'), DTypeError, 'div', /float32 and int32/);
    expectError(() => x.fmod(i as never), DTypeError, 'fmod', /different dtypes/);
    expectError(() => (i as never as typeof x).lgamma(), DTypeError, 'lgamma', /int32/);
    expectError(() => (i as never as typeof x).erfinv(), DTypeError, 'erfinv', /int32/);
    expectError(() => (i as never as typeof x).logit(), DTypeError, 'logit', /float tensor/);
  });
  test('bad arguments', () => {
    expectError(() => x.div(x, 'round' as never), ArgumentError, 'div', /roundingMode must be 'trunc' or 'floor'/);
    expectError(() => x.lerp(x, 'half' as never), ArgumentError, 'lerp', /operand/);
    expectError(() => x.addcmul(x, x, 'two' as never), ArgumentError, 'addcmul', /value/);
    expectError(() => x.logit(NaN), ArgumentError, 'logit', /eps/);
    expectError(() => x.polygamma(2), ArgumentError, 'polygamma', /order 2/);
    expectError(() => x.polygamma(0.5), ArgumentError, 'polygamma', /integer/);
  });
});

describe('the misc ops (addmm ... isclose)', () => {
  const m23 = zeros(cpu, [2, 3]);
  const m34 = zeros(cpu, [3, 4]);
  const i = zeros(cpu, [2, 3], { dtype: 'int32' });
  test('the addmm family names itself, the shapes and the dtypes', () => {
    expectError(() => zeros(cpu, [2, 4]).addmm(m23, m23), ShapeError, 'addmm', /inner sizes 3 and 2.*\[2, 3\], \[2, 3\]/);
    expectError(() => zeros(cpu, [3, 4]).addmm(m23, m34), ShapeError, 'addmm', /not broadcastable.*\[3, 4\], \[2, 4\]/);
    expectError(() => zeros(cpu, [2, 4]).addmm(i as never, m34), DTypeError, 'addmm', /float.*int32/);
    expectError(() => zeros(cpu, [2, 4]).addmm(m23, m34, { beta: 'x' as never }), ArgumentError, 'addmm', /beta/);
    expectError(() => zeros(cpu, [1]).baddbmm(zeros(cpu, [2, 2, 3]), zeros(cpu, [3, 3, 1])), ShapeError, 'baddbmm', /batch size/);
    expectError(() => zeros(cpu, [1]).addmv(m23, zeros(cpu, [2])), ShapeError, 'addmv', /inner sizes 3 and 2/);
    expectError(() => zeros(cpu, [1]).addr(m23, zeros(cpu, [2])), ShapeError, 'addr', /vec1 must be 1-D/);
  });
  test('cross, cdist, trace, kron, rot90, movedim', () => {
    expectError(() => m23.cross(m23, 0), ShapeError, 'cross', /dim 0 must have size 3/);
    expectError(() => m23.cdist(m34), ShapeError, 'cdist', /\[\.\.\., P, M\]/);
    expectError(() => m23.cdist(m23, -1), ArgumentError, 'cdist', /non-negative/);
    expectError(() => zeros(cpu, [3]).trace(), ShapeError, 'trace', /2-D/);
    expectError(() => m23.kron(i as never), DTypeError, 'kron', /one dtype/);
    expectError(() => m23.rot90(1, [0, 0]), ArgumentError, 'rot90', /different/);
    expectError(() => m23.rot90(1.5), ArgumentError, 'rot90', /k/);
    expectError(() => m23.movedim([0, 1], [1]), ArgumentError, 'movedim', /as many/);
    expectError(() => zeros(cpu, [3]).fliplr(), ShapeError, 'fliplr', /rank 2/);
  });
  test('searchsorted, bucketize, histc, isclose and the elementwise helpers', () => {
    expectError(() => m23.searchsorted(zeros(cpu, [3, 2])), ShapeError, 'searchsorted', /leading dims/);
    expectError(() => zeros(cpu, [4]).searchsorted(zeros(cpu, [2]), { side: 'left', right: true }), ArgumentError, 'searchsorted', /side 'left' with right/);
    expectError(() => zeros(cpu, [4]).searchsorted(i as never), DTypeError, 'searchsorted', /one dtype/);
    expectError(() => m23.bucketize(m23), ShapeError, 'bucketize', /1-D/);
    expectError(() => m23.histc(0), ArgumentError, 'histc', /bins/);
    expectError(() => m23.histc(4, 2, 1), ArgumentError, 'histc', /max must be >= min/);
    expectError(() => m23.isclose(zeros(cpu, [4])), ShapeError, 'isclose', /not broadcastable/);
    expectError(() => m23.isclose(m23, { rtol: -1 }), ArgumentError, 'isclose', /non-negative/);
    expectError(() => (i as never as typeof m23).sinc(), DTypeError, 'sinc', /float/);
    expectError(() => (i as never as typeof m23).deg2rad(), DTypeError, 'deg2rad', /float/);
    expectError(() => m23.logaddexp2(zeros(cpu, [4])), ShapeError, 'logaddexp2', /not broadcastable/);
    expectError(() => m23.heaviside(zeros(cpu, [4])), ShapeError, 'heaviside', /not broadcastable/);
  });
});
