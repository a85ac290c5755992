/**
 * MaxPool1d / MaxPool2d modules and torch's return_indices: forwardWithIndices gives the values
 * and indices (paired with MaxUnpool as in torch); the option itself is refused, so forward
 * always gives the tensor its type says.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError } from '../../src/errors.js';
import { MaxPool1d, MaxPool2d, MaxUnpool2d } from '../../src/nn/pool.js';
import { fromData } from '../../src/tensor/creation.js';
import { untyped } from '../untyped.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

describe('MaxPool modules with indices', () => {
  it('MaxPool2d.forwardWithIndices then MaxUnpool2d: torch 1.13 values and indices', async () => {
    const x = fromData(cpu, [[[[1, 5, 2, 0, 3], [4, -1, 7, 7, 2], [0, 3, 3, 9, -2], [6, 2, 8, 1, 1]]]]);
    const pool = new MaxPool2d<Cpu>(2, { stride: 2, padding: 1 });
    const { values, indices } = pool.forwardWithIndices(x);
    // torch: nn.MaxPool2d(2, stride=2, padding=1, return_indices=True).
    expect(values.shape).toEqual([1, 1, 3, 3]);
    expect(Array.from((await values.toData()).values)).toEqual([1, 5, 3, 4, 7, 9, 6, 8, 1]);
    expect(Array.from((await indices.toData()).values)).toEqual([0, 1, 4, 5, 7, 13, 15, 17, 18]);
    expect(Array.from((await pool.forward(x).toData()).values)).toEqual([1, 5, 3, 4, 7, 9, 6, 8, 1]);
    const back = new MaxUnpool2d<Cpu>(2, { stride: 2, padding: 1 }).forward(values, indices, [4, 5]);
    expect(Array.from((await back.toData()).values)).toEqual([1, 5, 0, 0, 3, 4, 0, 7, 0, 0, 0, 0, 0, 9, 0, 6, 0, 8, 1, 0]);
  });

  it('MaxPool1d.forwardWithIndices: torch 1.13 values and positions', async () => {
    const { values, indices } = new MaxPool1d<Cpu>(3, { stride: 2 }).forwardWithIndices(fromData(cpu, [[[1, 5, 2, 0, 3, 4, -1]]]));
    expect(Array.from((await values.toData()).values)).toEqual([5, 3, 4]);
    expect(Array.from((await indices.toData()).values)).toEqual([1, 4, 5]);
  });

  it('an untyped returnIndices option is refused (forward would have given an object typed as a tensor)', () => {
    for (const make of [() => new MaxPool2d<Cpu>(2, untyped({ returnIndices: true })), () => new MaxPool1d<Cpu>(2, untyped({ returnIndices: true }))]) {
      expect(make).toThrow(ArgumentError);
      expect(make).toThrow(/^MaxPool[12]d: returnIndices is not an option of the module \(forward returns the values\), got true; hint: call forwardWithIndices\(x\)/);
    }
    expect(() => new MaxPool2d<Cpu>(2, untyped(null))).toThrow(/^MaxPool2d: options must be an object, got null/);
    // false is torch's default: accepted, forward gives the tensor.
    const x = fromData(cpu, [[[[1, 2], [3, 4]]]]);
    expect(new MaxPool2d<Cpu>(2, untyped({ returnIndices: false })).forward(x).shape).toEqual([1, 1, 1, 1]);
  });
});
