import { buildOp } from '../../src/ir/builder.js';
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError, DeviceError, DisposedError, ShapeError, fromData, ones, tidy, zeros } from '../../src/index.js';
import type { Device } from '../../src/index.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

describe('typed errors at the call site', () => {
  test('broadcasting mismatch names op and shapes', () => {
    const a = zeros(cpu, [2, 3]);
    const b = zeros(cpu, [4]);
    const err = (() => {
      try {
        a.add(b);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ShapeError);
    expect((err as ShapeError).op).toBe('add');
    expect((err as ShapeError).shapes).toEqual([[2, 3], [4]]);
    expect(String(err)).toMatch(/not broadcastable.*\[2, 3\], \[4\].*hint/);
  });

  test('matmul inner dims', () => {
    expect(() => zeros(cpu, [2, 3]).matmul(zeros(cpu, [4, 5]))).toThrow(/matmul: inner dims differ \(3 vs 4\)/);
  });

  test('dtype mismatch is not promoted', () => {
    const a = zeros(cpu, [2]);
    const b = zeros(cpu, [2], { dtype: 'int32' });
    expect(() => a.add(b as never)).toThrow(DTypeError);
    expect(() => a.add(b as never)).toThrow(/cast/);
  });

  test('float-only ops reject ints', () => {
    const i = zeros(cpu, [2], { dtype: 'int32' });
    expect(() => (i as never as ReturnType<typeof zeros<Cpu>>).exp()).toThrow(DTypeError);
    expect(() => i.add(0.5)).toThrow(/non-integer scalar/);
  });

  test('bad dims, reshapes, slices, permutations', () => {
    const a = zeros(cpu, [2, 3]);
    expect(() => a.sum(2)).toThrow(ShapeError);
    expect(() => a.reshape([4, 2])).toThrow(/cannot reshape 6 elements into 8/);
    expect(() => a.reshape([-1, -1])).toThrow(/only one dim may be -1/);
    expect(() => a.permute([0, 0])).toThrow(/not a permutation/);
    expect(() => a.slice([5])).toThrow(/index 5 is out of range/);
    expect(() => a.expand([3, 3])).toThrow(/cannot expand/);
    expect(() => a.narrow(1, 2, 2)).toThrow(/out of range/);
    expect(() => a.split([1, 1], 1)).toThrow(/do not add up/);
  });

  test('empty max has no identity', () => {
    expect(() => zeros(cpu, [0, 3]).max(0)).toThrow(/empty/);
  });

  test('ragged data and bad arguments', () => {
    expect(() => fromData(cpu, [[1, 2], [3]])).toThrow(ArgumentError);
    expect(() => zeros(cpu, [2, -1])).toThrow(ArgumentError);
  });

  test('clamp with min > max is not an error: every element becomes max, as torch.clamp(x, 3, 1)', async () => {
    // torch.clamp(torch.tensor([0., 2., 5., nan]), 3, 1) -> [1., 1., 1., nan]
    expect(Array.from((await fromData(cpu, [0, 2, 5, NaN]).clamp(3, 1).toData()).values)).toEqual([1, 1, 1, NaN]);
    expect(Array.from((await fromData(cpu, [0, 2, 5], { dtype: 'int32' }).clamp(3, 1).toData()).values)).toEqual([1, 1, 1]);
  });

  test('where with a fractional scalar on an int32 tensor is a DTypeError (torch would promote to float)', () => {
    const i = fromData(cpu, [0, 1], { dtype: 'int32' });
    expect(() => i.where(fromData(cpu, [true, false]), 1.5)).toThrow(DTypeError);
    expect(() => i.where(fromData(cpu, [true, false]), 1.5)).toThrow(/where: a non-integer scalar 1.5 with an int32 tensor/);
  });

  test('inputs on different devices: DeviceError naming both, hinting toDevice', () => {
    const a = zeros(cpu, [2]);
    const other: Device = { backend: 'cpu', key: 'cpu:other' };
    const fake = { ...a.handle, device: other };
    try {
      buildOp(cpu.runtime.ids, 'add', [a.handle, fake], {});
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(DeviceError);
      expect((e as DeviceError).devices).toEqual(['cpu', 'cpu:other']);
      expect(String(e)).toMatch(/toDevice/);
    }
  });

  test('a device of another backend is refused', () => {
    expect(() => zeros(cpu, [2], { device: { backend: 'wgpu', key: 'wgpu:0' } })).toThrow(DeviceError);
  });

  test('use after dispose and after tidy', async () => {
    const a = zeros(cpu, [2]);
    a.dispose();
    expect(() => a.add(1)).toThrow(DisposedError);
    await expect(a.toData()).rejects.toThrow(DisposedError);
    let inner!: ReturnType<typeof zeros<Cpu>>;
    tidy(() => {
      inner = zeros(cpu, [2]);
      return undefined;
    });
    expect(() => inner.exp()).toThrow(DisposedError);
  });

  test('tidy refuses async functions', () => {
    expect(() => tidy(async () => 1)).toThrow(/synchronous/);
  });

  test('after errors the scheduler keeps running', async () => {
    expect(() => zeros(cpu, [2]).add(zeros(cpu, [3]))).toThrow();
    const v = await fromData(cpu, [1, 2]).add(1).toData();
    expect(Array.from(v.values)).toEqual([2, 3]);
  });
});
