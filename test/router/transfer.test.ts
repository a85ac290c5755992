import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { ArgumentError } from '../../src/errors.js';
import { fromData } from '../../src/tensor/creation.js';
import { bits, CPU1, cpuRouter, recordEvents } from './helpers.js';

const router = cpuRouter();
afterAll(() => router.close());
const D0 = MultiDevice.B1(CpuDevice.Cpu);
const D1 = MultiDevice.B2(CPU1);

/** Float32 values whose bits a careless path would change: NaN payloads, -0, denormals, infinities. */
function trickyFloats(): Float32Array {
  const u = Uint32Array.of(0x7fc00000, 0xffc00001, 0x7fa00005, 0x80000000, 0x00000000, 0x00000001, 0x007fffff, 0x80000001, 0x7f800000, 0xff800000, 0x7f7fffff, 0x3f800000, 0x33d6bf95);
  return new Float32Array(u.buffer);
}

describe('toDevice between two CPU devices', () => {
  test('returns at once; the transfer runs later as an op with bytes and times', async () => {
    const rec = recordEvents();
    const x = fromData(router, [1, 2, 3, 4], { device: D0 });
    const y = x.toDevice(D1);
    expect(y.device).toEqual(D1);
    expect(y.shape).toEqual([4]);
    expect(rec.on('transfer')).toEqual([]); // nothing ran on this turn
    expect(Array.from((await y.toData()).values)).toEqual([1, 2, 3, 4]);
    rec.stop();
    const ev = rec.events.find((e) => e.op === 'transfer')!;
    expect(ev).toMatchObject({ device: 'cpu:1', inputBytes: 16, outputBytes: 16, where: 'host-copy from cpu' });
    expect(ev.startAt).toBeLessThanOrEqual(ev.endAt);
    expect(ev.error).toBeUndefined();
  });

  test('the same device is free: a view, no transfer op', async () => {
    const rec = recordEvents();
    const x = fromData(router, [1, 2], { device: D1 });
    const y = x.toDevice(D1);
    rec.stop();
    expect(rec.on('transfer')).toEqual([]);
    expect(rec.events.at(-1)).toMatchObject({ op: 'reshape', where: 'view' });
    expect(Array.from((await y.toData()).values)).toEqual([1, 2]);
  });

  for (const [from, to] of [
    [D0, D1],
    [D1, D0],
  ] as const) {
    test(`bit-exact round trips ${from.key} -> ${to.key} -> ${from.key}: float32, int32, bool`, async () => {
      const inputs = [
        fromData(router, trickyFloats(), { device: from }),
        fromData(router, Int32Array.of(-(2 ** 31), 2 ** 31 - 1, 0, -1, 1, 123456789), { device: from }),
        fromData(router, Uint8Array.of(0, 1, 1, 0, 1), { device: from }),
      ];
      for (const x of inputs) {
        const want = await x.toData(); // the source device's own bits are the reference
        const there = x.toDevice(to);
        const back = there.toDevice(from);
        const [a, b] = await Promise.all([there.toData(), back.toData()]);
        expect(a.dtype).toBe(want.dtype);
        expect(bits(a.values)).toEqual(bits(want.values));
        expect(bits(b.values)).toEqual(bits(want.values));
      }
      const f = (await inputs[0]!.toData()).values;
      expect([Number.isNaN(f[0]!), Object.is(f[3], -0), f[5]]).toEqual([true, true, 2 ** -149]);
    });
  }

  test('strided views arrive contiguous, in logical order; empty and rank-0 tensors move too', async () => {
    const x = fromData(router, [[1, 2, 3], [4, 5, 6]], { device: D0 });
    const t = x.transpose().slice([null, [1, 2]]);
    expect(await t.toDevice(D1).toArray()).toEqual([[4], [5], [6]]);
    expect(await fromData(router, new Float32Array(0), { device: D0 }).toDevice(D1).toArray()).toEqual([]);
    expect(await fromData(router, 7.5, { device: D1 }).toDevice(D0).item()).toBe(7.5);
  });

  test('ops chain across devices without awaiting; the source may be disposed at once', async () => {
    const x = fromData(router, [1, 2, 3], { device: D0 });
    const y = x.mul(2).toDevice(D1).add(1).toDevice(D0).sub(x);
    x.dispose();
    expect(await y.toArray()).toEqual([2, 3, 4]);
  });

  test('a failed producer fails the transfer and everything after it with the original error', async () => {
    const rec = recordEvents();
    const x = fromData(router, [1, 2, 3], { device: D0 });
    const bad = x.indexSelect(0, fromData(router, Int32Array.of(5), { device: D0 }));
    const moved = bad.toDevice(D1).add(1);
    await expect(moved.toData()).rejects.toThrow(ArgumentError);
    await expect(moved.toData()).rejects.toThrow(/indexSelect: index 5 is out of range/);
    rec.stop();
    expect(rec.events.find((e) => e.op === 'transfer')).toMatchObject({ where: 'skipped', device: 'cpu:1' });
  });

  test('storage made by a transfer is freed on the destination', async () => {
    const before = router.memory(D1).tensors;
    const y = fromData(router, [1, 2, 3], { device: D0 }).toDevice(D1);
    await y.toData();
    expect(router.memory(D1).tensors).toBe(before + 1);
    y.dispose();
    expect(router.memory(D1).tensors).toBe(before);
  });

  test('under Autodiff the transfer is recorded: its gradient moves back to the source device', async () => {
    const ad = new Autodiff(router);
    const x = fromData(ad, [1, -2, 3], { device: D0 }).requireGrad();
    const loss = x.mul(2).toDevice(D1).square().sum(); // d/dx (2x)^2 = 8x
    expect(loss.device).toEqual(D1);
    const g = loss.backward().get(x)!;
    expect(g.device).toEqual(D0);
    expect(await g.toArray()).toEqual([8, -16, 24]);
  });
});
