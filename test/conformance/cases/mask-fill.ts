/**
 * maskFill (out = mask ? value : x, one op): every dtype, masks broadcast from lower ranks and
 * size-1 dims, NaN and infinities in x and as the value, rank 0, empty tensors, strided x, a
 * chain that fuses, and the errors a bad call must raise. References are written per element
 * from the inputs (the value coerced by hand: int32 truncates, bool is v != 0 with NaN true).
 */
import type { Backend } from '../../../src/backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../../src/errors.js';
import { fromData } from '../../../src/tensor/creation.js';
import { ConformanceError, EXACT } from '../harness.js';
import * as R from '../ref.js';
import type { Arr } from '../ref.js';
import { Rng } from '../rng.js';
import { bt, check, ex, f32, ft, it, randB, randI, randWith, value, type Case } from './util.js';
import { halves, ht } from './float16.js';

/** mask ? v : x per element, the mask broadcast to x's shape. */
function fill(m: Arr, x: Arr, v: number): Arr {
  return R.map([m, x], (mm, xx) => (mm ? v : xx));
}

function dtypes(out: Case[]): void {
  // float32, mask [3,1] and [4] on [2,3,4]; mask of x's rank with size-1 dims.
  for (const ms of [[3, 1], [4], [2, 1, 4], [2, 3, 4], [1, 1, 1]]) {
    const rng = new Rng(`maskFill f32 ${ms.join('x')}`);
    const m = randB(rng, ms);
    const x = randWith(rng, [2, 3, 4], (r) => r.float(-5, 5));
    out.push(value(`maskFill float32 [2,3,4] mask [${ms.join(',')}] value 2.5`, 'maskFill', EXACT, (b) => ft(b, x).maskFill(bt(b, m), 2.5), () => ex(fill(m, x, 2.5))));
  }
  {
    // A value float32 cannot hold exactly is rounded as full(…) rounds it (the reference compares after fround).
    const rng = new Rng('maskFill f32 0.1');
    const m = randB(rng, [5]);
    const x = randWith(rng, [3, 5], (r) => r.float(-1, 1));
    out.push(value('maskFill float32 value 0.1 (rounded to float32)', 'maskFill', EXACT, (b) => ft(b, x).maskFill(bt(b, m), 0.1), () => ex(fill(m, x, 0.1))));
  }
  {
    const rng = new Rng('maskFill i32');
    const m = randB(rng, [3, 1]);
    const x = randI(rng, [3, 4]);
    out.push(value('maskFill int32 mask [3,1] value -2^31', 'maskFill', EXACT, (b) => it(b, x).maskFill(bt(b, m), -(2 ** 31)), () => ex(fill(m, x, -(2 ** 31)), 'int32')));
    out.push(value('maskFill int32 value 2^31-1', 'maskFill', EXACT, (b) => it(b, x).maskFill(bt(b, m), 2 ** 31 - 1), () => ex(fill(m, x, 2 ** 31 - 1), 'int32')));
    // A fraction truncates toward zero, as full(…, { dtype: 'int32' }) does: -2.9 is -2.
    out.push(value('maskFill int32 value -2.9 truncates', 'maskFill', EXACT, (b) => it(b, x).maskFill(bt(b, m), -2.9), () => ex(fill(m, x, -2), 'int32')));
  }
  {
    const rng = new Rng('maskFill bool');
    const m = randB(rng, [2, 1]);
    const x = randB(rng, [2, 5]);
    out.push(value('maskFill bool value 1', 'maskFill', EXACT, (b) => bt(b, x).maskFill(bt(b, m), 1), () => ex(fill(m, x, 1), 'bool')));
    out.push(value('maskFill bool value 0', 'maskFill', EXACT, (b) => bt(b, x).maskFill(bt(b, m), 0), () => ex(fill(m, x, 0), 'bool')));
    // NaN is truthy (a bool holds v != 0, as PyTorch's): true.
    out.push(value('maskFill bool value NaN is true', 'maskFill', EXACT, (b) => bt(b, x).maskFill(bt(b, m), NaN), () => ex(fill(m, x, 1), 'bool')));
    out.push(value('maskFill bool value -0.5 is true', 'maskFill', EXACT, (b) => bt(b, x).maskFill(bt(b, m), -0.5), () => ex(fill(m, x, 1), 'bool')));
  }
  {
    const rng = new Rng('maskFill f16');
    const m = randB(rng, [1, 4]);
    const x = halves(randWith(rng, [3, 4], (r) => r.float(-2, 2)));
    // The comparison rounds the expected value to float16 (0.1 -> 0.0999755859375, 70000 -> inf).
    out.push(value('maskFill float16 mask [1,4] value 0.1', 'maskFill', EXACT, (b) => ht(b, x).maskFill(bt(b, m), 0.1), () => ex(fill(m, x, 0.1), 'float16')));
    out.push(value('maskFill float16 value 70000 overflows to inf', 'maskFill', EXACT, (b) => ht(b, x).maskFill(bt(b, m), 70000), () => ex(fill(m, x, Infinity), 'float16')));
    out.push(value('maskFill float16 value NaN', 'maskFill', EXACT, (b) => ht(b, x).maskFill(bt(b, m), NaN), () => ex(fill(m, x, NaN), 'float16')));
  }
}

function specials(out: Case[]): void {
  const x = f32([8], [NaN, Infinity, -Infinity, NaN, Infinity, -Infinity, -0, 1]);
  const m = R.arr([8], [1, 1, 1, 0, 0, 0, 0, 1]);
  // NaN and the infinities under a true mask are replaced; under a false one they pass, as does -0.
  for (const v of [3, NaN, Infinity, -Infinity, -0]) {
    out.push(value(`maskFill special x, value ${v}`, 'maskFill', EXACT, (b) => ft(b, x).maskFill(bt(b, m), v), () => ex(R.arr([8], [v, v, v, NaN, Infinity, -Infinity, -0, v]))));
  }
  const h = R.arr([8], [NaN, Infinity, -Infinity, NaN, Infinity, -Infinity, -0, 1]);
  out.push(value('maskFill float16 special x, value -inf', 'maskFill', EXACT, (b) => ht(b, h).maskFill(bt(b, m), -Infinity), () => ex(R.arr([8], [-Infinity, -Infinity, -Infinity, NaN, Infinity, -Infinity, -0, -Infinity]), 'float16')));
}

function rankZeroAndEmpty(out: Case[]): void {
  const s = f32([], [1.25]);
  out.push(value('maskFill rank-0 x, rank-0 mask true', 'maskFill', EXACT, (b) => ft(b, s).maskFill(bt(b, R.arr([], [1])), -4), () => ex(R.arr([], [-4]))));
  out.push(value('maskFill rank-0 x, rank-0 mask false', 'maskFill', EXACT, (b) => ft(b, s).maskFill(bt(b, R.arr([], [0])), -4), () => ex(R.arr([], [1.25]))));
  out.push(value('maskFill rank-0 int32 x, mask [1]', 'maskFill', EXACT, (b) => it(b, R.arr([], [5])).maskFill(bt(b, R.arr([1], [1])).reshape([]), 9), () => ex(R.arr([], [9]), 'int32')));
  {
    const x = randWith(new Rng('maskFill rank0 mask'), [2, 3], (r) => r.float(-1, 1));
    out.push(value('maskFill [2,3] with a rank-0 true mask', 'maskFill', EXACT, (b) => ft(b, x).maskFill(bt(b, R.arr([], [1])), 7), () => ex(R.map([x], () => 7))));
  }
  const e = (n: readonly number[]): Arr => ({ shape: [...n], data: [] });
  const b3 = randB(new Rng('maskFill empty'), [3]);
  out.push(value('maskFill [0,3] mask [3] (empty)', 'maskFill', EXACT, (b) => ft(b, e([0, 3])).maskFill(bt(b, b3), 1), () => ex(e([0, 3]))));
  out.push(value('maskFill [2,0] mask [1,0] (empty)', 'maskFill', EXACT, (b) => ft(b, e([2, 0])).maskFill(bt(b, e([1, 0])), 1), () => ex(e([2, 0]))));
  out.push(value('maskFill int32 [0] rank-0 mask (empty)', 'maskFill', EXACT, (b) => it(b, e([0])).maskFill(bt(b, R.arr([], [1])), 1), () => ex(e([0]), 'int32')));
  out.push(value('maskFill bool [0,2] mask [0,2] (empty)', 'maskFill', EXACT, (b) => bt(b, e([0, 2])).maskFill(bt(b, e([0, 2])), 1), () => ex(e([0, 2]), 'bool')));
}

function layouts(out: Case[]): void {
  {
    // Strided x (a transpose) and an expanded mask: the kernels' strided paths.
    const rng = new Rng('maskFill strided');
    const x = randWith(rng, [5, 4], (r) => r.float(-3, 3));
    const m = randB(rng, [1, 5]);
    out.push(value('maskFill transposed x, expanded mask', 'maskFill', EXACT, (b) => ft(b, x).transpose().maskFill(bt(b, m).expand([4, 5]), -1), () => ex(fill(m, R.permute(x, [1, 0]), -1))));
  }
  {
    // Sizes past the wasm kernels' four lanes and the pool's split, with row and column masks.
    const rng = new Rng('maskFill large');
    const xf = randWith(rng, [257, 33], (r) => r.float(-3, 3));
    const xi = randI(rng, [257, 33]);
    const rows = randB(rng, [257, 1]);
    const cols = randB(rng, [33]);
    out.push(value('maskFill float32 [257,33] row mask', 'maskFill', EXACT, (b) => ft(b, xf).maskFill(bt(b, rows), -0.5), () => ex(fill(rows, xf, -0.5))));
    out.push(value('maskFill float32 [257,33] column mask', 'maskFill', EXACT, (b) => ft(b, xf).maskFill(bt(b, cols), NaN), () => ex(fill(cols, xf, NaN))));
    out.push(value('maskFill int32 [257,33] column mask', 'maskFill', EXACT, (b) => it(b, xi).maskFill(bt(b, cols), -3), () => ex(fill(cols, xi, -3), 'int32')));
  }
  {
    // A chain a Fusion backend runs as one kernel: relu's backward shape, mask from a comparison.
    const rng = new Rng('maskFill chain');
    const x = randWith(rng, [6, 7], (r) => r.float(-2, 2));
    const g = randWith(rng, [6, 7], (r) => r.float(-2, 2));
    out.push(value('maskFill in a chain: (g * 2) masked by x <= 0, plus 1', 'maskFill', EXACT, (b) => ft(b, g).mul(2).maskFill(ft(b, x).lowerEqual(0), 0).add(1), () => ex(R.map([x, g], (xx, gg) => (xx <= 0 ? 0 : Math.fround(gg * 2)) + 1))));
  }
}

/** A method called as untyped JS would call it (any arguments). */
function untyped(target: object, method: string, ...args: unknown[]): unknown {
  const fn: unknown = Reflect.get(target, method);
  if (typeof fn !== 'function') throw new ConformanceError(`no method ${method}`);
  return Reflect.apply(fn, target, args);
}

/** `fn` must throw an error of class `E`. */
function throws(label: string, fn: () => unknown, E: new (...args: never[]) => Error): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof E) return;
    throw new ConformanceError(`${label}: expected a ${E.name}, got ${String(e)}`);
  }
  throw new ConformanceError(`${label}: no error`);
}

function errors(out: Case[]): void {
  out.push(
    check('maskFill errors: a non-bool mask, a mask that does not broadcast or would widen x, a non-number value, an int32 value out of range', 'maskFill', EXACT, async (b: Backend) => {
      const x = ft(b, f32([2, 3], [1, 2, 3, 4, 5, 6]));
      const xi = it(b, R.arr([3], [1, 2, 3]));
      const fmask = fromData(b, Float32Array.from([1, 0, 1]), { shape: [3] });
      const m2 = bt(b, R.arr([2], [1, 0]));
      const wide = bt(b, R.arr([4, 1, 1], [1, 0, 1, 0]));
      const m3 = bt(b, R.arr([3], [1, 0, 1]));
      try {
        throws('float mask', () => untyped(x, 'maskFill', fmask, 1), DTypeError);
        throws('mask [2] on [2,3]', () => x.maskFill(m2, 1), ShapeError);
        throws('mask [4,1,1] on [2,3]', () => x.maskFill(wide, 1), ShapeError);
        throws('value "1"', () => untyped(x, 'maskFill', m3, '1'), ArgumentError);
        throws('value undefined', () => untyped(x, 'maskFill', m3, undefined), ArgumentError);
        throws('mask not a tensor', () => untyped(x, 'maskFill', [true, false, true], 1), ArgumentError);
        throws('int32 value 2^31', () => xi.maskFill(m3, 2 ** 31), DTypeError);
        throws('int32 value NaN', () => xi.maskFill(m3, NaN), DTypeError);
        throws('int32 value inf', () => xi.maskFill(m3, Infinity), DTypeError);
      } finally {
        for (const t of [x, xi, fmask, m2, wide, m3]) t.dispose();
      }
      await Promise.resolve();
    }),
  );
}

export function maskFillCases(): Case[] {
  const out: Case[] = [];
  dtypes(out);
  specials(out);
  rankZeroAndEmpty(out);
  layouts(out);
  errors(out);
  return out;
}
