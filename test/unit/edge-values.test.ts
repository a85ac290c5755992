/**
 * Edge values that used to change silently: numbers an int32 tensor cannot hold (NaN, the
 * infinities, past 2^31) in scalar ops, fills and masks are DTypeErrors; rank-0 tensors gather and
 * scatter as PyTorch's do, and cat / split / chunk / indexSelect refuse them; mixed booleans and
 * numbers make a float tensor whichever comes first; seeds must be integers, and seeds that differ
 * only past 32 bits give different streams.
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError, ShapeError, Tensor, fromData, full, ones, random, zeros } from '../../src/index.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

async function values(t: Tensor<Cpu>): Promise<number[]> {
  const v = Array.from((await t.toData()).values);
  t.dispose();
  return v;
}

/** Calls a method the way untyped JavaScript may: the arguments go through `unknown` on purpose. */
function untyped(target: object, method: string, ...args: unknown[]): unknown {
  const fn: unknown = Reflect.get(target, method);
  if (typeof fn !== 'function') throw new Error(`no method ${method}`);
  return Reflect.apply(fn, target, args);
}

describe('numbers an int32 tensor cannot hold', () => {
  const x = fromData(cpu, Int32Array.from([-5, 3]));
  const bad = [Number.NaN, Infinity, -Infinity, 2 ** 31, -(2 ** 31) - 1, 2 ** 32 + 1];

  test('scalar arithmetic with them is a DTypeError naming the op and the value', () => {
    for (const op of ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'remainder', 'pow']) {
      for (const v of bad) {
        expect(() => untyped(x, op, v), `${op}(${v})`).toThrow(DTypeError);
        expect(() => untyped(x, op, v), `${op}(${v})`).toThrow(new RegExp(`^${op}: ${String(v).replace('+', '\\+')} does not fit an int32 tensor`));
      }
    }
  });

  test('the range ends themselves are fine, and int32 arithmetic still wraps', async () => {
    expect(await values(x.add(-(2 ** 31)))).toEqual([(-5 - 2 ** 31 + 2 ** 32) | 0, (3 - 2 ** 31) | 0]);
    expect(await values(x.maximum(2 ** 31 - 1))).toEqual([2 ** 31 - 1, 2 ** 31 - 1]);
    expect(await values(x.minimum(-(2 ** 31)))).toEqual([-(2 ** 31), -(2 ** 31)]);
  });

  test('comparisons with them stay exact (no error)', async () => {
    expect(await values(x.lower(Infinity))).toEqual([1, 1]);
    expect(await values(x.greater(2 ** 31))).toEqual([0, 0]);
    expect(await values(x.equal(Number.NaN))).toEqual([0, 0]);
  });

  test('full, maskFill and where with them are DTypeErrors; a fraction still truncates', async () => {
    for (const v of bad) {
      expect(() => full(cpu, [2], v, { dtype: 'int32' })).toThrow(/^full: .* does not fit an int32 tensor/);
      expect(() => x.maskFill(fromData(cpu, [true, false]), v)).toThrow(/^maskFill: .* does not fit an int32 tensor/);
      expect(() => x.where(fromData(cpu, [true, false]), v)).toThrow(/^where: .* does not fit an int32 tensor/);
    }
    expect(await values(full(cpu, [2], -2.7, { dtype: 'int32' }))).toEqual([-2, -2]);
    // Float tensors take every number.
    expect(await values(fromData(cpu, [1, 2]).maskFill(fromData(cpu, [true, false]), -Infinity))).toEqual([-Infinity, 2]);
  });

  test('zeros and ones name themselves in their errors', () => {
    expect(() => zeros(cpu, [2, -1])).toThrow(/^zeros: /);
    expect(() => untyped({ ones }, 'ones', cpu, [2], { dtype: 'float64' })).toThrow(/^ones: /);
  });
});

describe('rank-0 tensors', () => {
  const s = fromData(cpu, 5);
  const i0 = fromData(cpu, Int32Array.from([0]), { shape: [] });

  test('gather: as a tensor of rank 1 (dim 0 or -1), the result shaped as the index', async () => {
    const a = s.gather(0, i0);
    expect(a.shape).toEqual([]);
    expect(await values(a)).toEqual([5]);
    expect(await values(s.gather(-1, i0))).toEqual([5]);
    const b = s.gather(0, fromData(cpu, Int32Array.from([0, 0])));
    expect(b.shape).toEqual([2]);
    expect(await values(b)).toEqual([5, 5]);
    expect(() => s.gather(1, i0)).toThrow(ShapeError);
    await expect(s.gather(0, fromData(cpu, Int32Array.from([3]), { shape: [] })).toData()).rejects.toThrow(/index 3 is out of range for dim 0 of size 1/);
  });

  test('scatterAdd: the value added, the result of rank 0', async () => {
    const r = s.scatterAdd(0, i0, fromData(cpu, 2));
    expect(r.shape).toEqual([]);
    expect(await values(r)).toEqual([7]);
  });

  test('cat, split, chunk and indexSelect refuse them with a ShapeError', () => {
    expect(() => Tensor.cat([fromData(cpu, 1), fromData(cpu, 2)], 0)).toThrow(/^cat: rank-0 tensors cannot be concatenated/);
    expect(() => s.split(1)).toThrow(ShapeError);
    expect(() => s.chunk(2)).toThrow(/chunk needs a tensor of rank 1 or more/);
    expect(() => s.indexSelect(0, fromData(cpu, Int32Array.from([0])))).toThrow(/indexSelect needs a tensor of rank 1 or more/);
  });
});

test('fromData: booleans mixed with numbers make a float tensor, whichever comes first', async () => {
  for (const data of [[true, 2], [2, true], [[false], [3]]]) {
    const t = fromData(cpu, data);
    expect(t.dtype).toBe('float32');
    expect((await values(t)).sort()).toEqual([...data.flat()].map(Number).sort());
  }
  expect(fromData(cpu, [true, false]).dtype).toBe('bool');
});

describe('seed', () => {
  test('anything but a safe integer is an ArgumentError', () => {
    for (const v of ['a', Number.NaN, Infinity, 1.5, 2 ** 53, null, undefined]) {
      expect(() => untyped(cpu, 'seed', v), String(v)).toThrow(ArgumentError);
      expect(() => untyped(cpu, 'seed', v), String(v)).toThrow(/^seed: seed must be an integer/);
    }
  });

  test('seeds that differ past 32 bits, or in sign, give different streams; equal seeds the same', async () => {
    const stream = async (seed: number): Promise<number[]> => {
      cpu.seed(seed);
      return values(random(cpu, [8]));
    };
    const base = await stream(7);
    expect(await stream(7)).toEqual(base);
    for (const other of [7 + 2 ** 32, 7 + 2 ** 40, -7, 2 ** 32 - 1 - 7]) expect(await stream(other), String(other)).not.toEqual(base);
    expect(await stream(7 + 2 ** 40)).toEqual(await stream(7 + 2 ** 40));
  });
});

test('errors name the function called: std, oneHot; swapDims on rank 0 is the same value', async () => {
  const x = fromData(cpu, [[1, 2], [3, 4]]);
  expect(() => x.std(5)).toThrow(/^std: /);
  expect(() => untyped(x, 'std', 0, { correction: Number.NaN })).toThrow(/^std: correction must be a finite number/);
  expect(() => untyped(fromData(cpu, Int32Array.from([1])), 'oneHot', 3, 'float64')).toThrow(/^oneHot: unknown dtype/);
  const s = fromData(cpu, 5).swapDims(0, -1);
  expect(s.shape).toEqual([]);
  expect(await values(s)).toEqual([5]);
});

describe('scatterAdd with values larger than the index (torch: index.size(k) <= src.size(k))', () => {
  test('reads the leading index-shaped block of the values', async () => {
    const x = zeros(cpu, [3, 4]);
    const index = fromData(cpu, Int32Array.from([3, 0, 1, 1, 0, 3]), { shape: [3, 2] });
    const src = fromData(cpu, [[1, 2, 100], [3, 4, 100], [5, 6, 100]]);
    // By hand: row i adds src[i][j] at column index[i][j], j < 2; column 2 of src is never read.
    const want = [[2, 0, 0, 1], [0, 7, 0, 0], [5, 0, 0, 6]].flat();
    expect(await values(x.scatterAdd(1, index, src))).toEqual(want);
    // Smaller values than the index stay a ShapeError.
    expect(() => x.scatterAdd(1, index, fromData(cpu, [[1], [2], [3]]))).toThrow(ShapeError);
  });
});
