import { afterAll, expect, test } from 'vitest';
import { Cpu, full, fromData } from '../../src/index.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

const bools = async (t: { toData(): Promise<{ values: ArrayLike<number> }> }) => Array.from((await t.toData()).values, (v) => v !== 0);

test('int32 tensors compare exactly with fractional and out-of-range scalars (as PyTorch)', async () => {
  const x = fromData(cpu, [-2, 0, 1], { dtype: 'int32' });
  expect(await bools(x.lower(0.5))).toEqual([true, true, false]);
  expect(await bools(x.lowerEqual(-0.5))).toEqual([true, false, false]);
  expect(await bools(x.greater(0.5))).toEqual([false, false, true]);
  expect(await bools(x.greaterEqual(-1.5))).toEqual([false, true, true]);
  expect(await bools(x.equal(0.5))).toEqual([false, false, false]);
  expect(await bools(x.notEqual(0.5))).toEqual([true, true, true]);
  expect(await bools(x.lower(3e9))).toEqual([true, true, true]);
  expect(await bools(x.greater(-3e9))).toEqual([true, true, true]);
  expect(await bools(x.equal(2 ** 32))).toEqual([false, false, false]);
  expect(await bools(x.lower(NaN))).toEqual([false, false, false]);
});

test('a float scalar takes the tensor dtype: 0.1 compares equal to float32 0.1', async () => {
  const x = fromData(cpu, [0.1]);
  expect(await bools(x.equal(0.1))).toEqual([true]);
  expect(await bools(x.greater(0.1))).toEqual([false]);
});

test('NaN converts to bool true, as cast does', async () => {
  expect(await bools(full(cpu, [2], NaN, { dtype: 'bool' }))).toEqual([true, true]);
  expect(await bools(fromData(cpu, [NaN, 0], { dtype: 'bool' }))).toEqual([true, false]);
  expect(await bools(fromData(cpu, [NaN, 0]).cast('bool'))).toEqual([true, false]);
});
