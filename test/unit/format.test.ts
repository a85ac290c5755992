/** Printing: format() as PyTorch prints, summarised past 1000 elements; Node's inspect hook. */
import { inspect } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { arange, fromData } from '../../src/tensor/creation.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

describe('format()', () => {
  it('prints small tensors in full', async () => {
    expect(await fromData(cpu, [[1, 2], [3, 4]]).format()).toBe('tensor([[1., 2.],\n        [3., 4.]])');
    expect(await fromData(cpu, [true, false]).format()).toBe('tensor([ True, False], dtype=bool)');
  });

  it('summarises past 1000 elements with the first and last three along each long dim', async () => {
    const t = arange(cpu, 2000).reshape([40, 50]);
    expect(await t.format()).toBe(
      [
        'tensor([[   0,    1,    2, ...,   47,   48,   49],',
        '        [  50,   51,   52, ...,   97,   98,   99],',
        '        [ 100,  101,  102, ...,  147,  148,  149],',
        '        ...,',
        '        [1850, 1851, 1852, ..., 1897, 1898, 1899],',
        '        [1900, 1901, 1902, ..., 1947, 1948, 1949],',
        '        [1950, 1951, 1952, ..., 1997, 1998, 1999]], dtype=int32)',
      ].join('\n'),
    );
  });
});

describe('console.log / util.inspect', () => {
  it('names shape, dtype and device before any read, and never waits', () => {
    const t = fromData(cpu, [[1, 2, 3]]);
    expect(inspect(t)).toBe('Tensor(shape=[1, 3], dtype=float32, device=cpu) (values not read yet: await t.format() or t.toData())');
  });

  it('adds the values once a read has fetched them', async () => {
    const t = fromData(cpu, [[1, 2, 3]]).mul(2);
    await t.toData();
    expect(inspect(t)).toBe('Tensor(shape=[1, 3], dtype=float32, device=cpu)\ntensor([[2., 4., 6.]])');
    expect(inspect({ t })).toContain('tensor([[2., 4., 6.]])');
    expect(inspect(t).split('\n').length).toBe(2); // not ~45 lines of internals
  });

  it('says when a tensor was disposed', () => {
    const t = fromData(cpu, [1]).cast('int32');
    t.dispose();
    expect(inspect(t)).toBe('Tensor(shape=[1], dtype=int32, device=cpu) (disposed)');
  });
});
