/**
 * The maskFill record's shape rule, as a backend that receives a foreign record (router, remote)
 * would run it: output metas, and the typed errors for a bad mask or a value the kernels would
 * store unconverted.
 */
import { describe, expect, it } from 'vitest';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import type { DType } from '../../src/ir/dtype.js';
import { inferOutputs, type Meta } from '../../src/ir/infer.js';

const meta = (shape: number[], dtype: DType): Meta => ({ shape, dtype });
const infer = (mask: Meta, x: Meta, value: number): Meta[] => inferOutputs({ op: 'maskFill', attrs: { value } }, [mask, x]);

/** The error `f` throws (undefined if none). */
function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('maskFill records', () => {
  it("output: x's shape and dtype, for every dtype and masks that broadcast to x", () => {
    for (const d of ['float32', 'float16', 'int32', 'bool'] as const) {
      for (const ms of [[], [1], [3], [2, 1], [2, 3], [1, 1]]) expect(infer(meta(ms, 'bool'), meta([2, 3], d), 1), `${d} mask [${ms.join(',')}]`).toEqual([{ shape: [2, 3], dtype: d }]);
    }
    expect(infer(meta([0, 1], 'bool'), meta([0, 3], 'float32'), 0)).toEqual([{ shape: [0, 3], dtype: 'float32' }]);
    expect(infer(meta([], 'bool'), meta([], 'float32'), Number.NaN)).toEqual([{ shape: [], dtype: 'float32' }]);
  });

  it('a non-bool mask is a DTypeError naming the op and both dtypes', () => {
    const e = thrown(() => infer(meta([3], 'float32'), meta([3], 'float32'), 0));
    expect(e).toBeInstanceOf(DTypeError);
    expect(e).toMatchObject({ op: 'maskFill', dtypes: ['float32', 'float32'] });
  });

  it('a mask that does not broadcast, or would widen x, is a ShapeError naming the shapes', () => {
    expect(thrown(() => infer(meta([2], 'bool'), meta([2, 3], 'float32'), 0))).toBeInstanceOf(ShapeError);
    const e = thrown(() => infer(meta([4, 1, 1], 'bool'), meta([2, 3], 'float32'), 0));
    expect(e).toBeInstanceOf(ShapeError);
    expect(e).toMatchObject({ op: 'maskFill', shapes: [[2, 3], [4, 1, 1]] });
    expect(thrown(() => infer(meta([2, 3], 'bool'), meta([3], 'float32'), 0))).toBeInstanceOf(ShapeError);
    // A leading 1 would still add a dim to the output: refused, as before maskFill was one op.
    expect(thrown(() => infer(meta([1, 2, 3], 'bool'), meta([2, 3], 'float32'), 0))).toBeInstanceOf(ShapeError);
  });

  it("a value x's dtype does not hold is a DTypeError (the tensor API coerces before recording)", () => {
    const bad: Array<[DType, number]> = [['int32', 1.5], ['int32', 2 ** 31], ['int32', Number.NaN], ['bool', 2], ['bool', Number.NaN], ['float32', 0.1], ['float16', Math.fround(0.1)], ['int32', -0]];
    for (const [d, v] of bad) expect(thrown(() => infer(meta([1], 'bool'), meta([1], d), v)), `${v} as ${d}`).toBeInstanceOf(DTypeError);
    const good: Array<[DType, number]> = [['int32', -(2 ** 31)], ['bool', 1], ['float32', Math.fround(0.1)], ['float32', -Infinity], ['float16', 0.0999755859375], ['float16', Number.NaN], ['float32', -0]];
    for (const [d, v] of good) expect(infer(meta([1], 'bool'), meta([1], d), v), `${v} as ${d}`).toEqual([{ shape: [1], dtype: d }]);
  });

  it('a value that is not a number (a record from untyped JS, or NaN through JSON) is an ArgumentError', () => {
    for (const value of [null, '1', undefined, true]) {
      const e = thrown(() => Reflect.apply(inferOutputs, undefined, [{ op: 'maskFill', attrs: { value } }, [meta([1], 'bool'), meta([1], 'float32')]]));
      expect(e, String(value)).toBeInstanceOf(ArgumentError);
    }
  });
});
