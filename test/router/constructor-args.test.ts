/** The Router constructor with arguments an untyped caller may pass: typed errors naming the problem. */
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { ArgumentError } from '../../src/errors.js';
import { Router } from '../../src/router/router.js';
import { CPU1 } from './helpers.js';
import { thrown } from '../thrown.js';

const cpu = new Cpu({ threads: 0 });
const cpu1 = new Cpu({ threads: 0, device: CPU1 });
afterAll(async () => {
  await cpu.close();
  await cpu1.close();
});

describe('Router constructor arguments', () => {
  test('an entry that is not a backend is an ArgumentError naming its position', () => {
    for (const list of [[1, 2], [null, null], [{}, {}]]) {
      const e = thrown(() => new Router(list as never));
      expect(e).toBeInstanceOf(ArgumentError);
      expect(String(e)).toMatch(/backend 1 of the list is not a backend/);
    }
    const e = thrown(() => new Router([cpu, {}] as never));
    expect(e).toBeInstanceOf(ArgumentError);
    expect(String(e)).toMatch(/backend 2 of the list is not a backend, got an object/);
    expect(String(e)).not.toMatch(/another runtime/);
  });

  test('options: null, an unknown key and a placer that is not an object are ArgumentErrors', () => {
    expect(thrown(() => new Router([cpu, cpu1], null as never))).toBeInstanceOf(ArgumentError);
    const typo = thrown(() => new Router([cpu, cpu1], { placment: 'auto' } as never));
    expect(typo).toBeInstanceOf(ArgumentError);
    expect(String(typo)).toMatch(/unknown option 'placment'.*'placement'/);
    const placer = thrown(() => new Router([cpu, cpu1], { placement: 'auto', placer: 5 } as never));
    expect(placer).toBeInstanceOf(ArgumentError);
    expect(String(placer)).toMatch(/placer must be an object/);
  });

  test('defaultDevice: a device string is parsed; an unknown one is an ArgumentError listing the valid ones', () => {
    expect(new Router([cpu, cpu1], { defaultDevice: 'cpu:1' }).defaultDevice().key).toBe('cpu:1');
    const unknown = thrown(() => new Router([cpu, cpu1], { defaultDevice: 'gpu' }));
    expect(unknown).toBeInstanceOf(ArgumentError);
    expect(String(unknown)).toMatch(/Router: unknown device 'gpu'.*valid devices: cpu, cpu:1/);
    const junk = thrown(() => new Router([cpu, cpu1], { defaultDevice: 5 } as never));
    expect(junk).toBeInstanceOf(ArgumentError);
    expect(String(junk)).toMatch(/device must be a device tag.*got 5/);
  });

  test('seed with something other than a device of the router is refused', () => {
    const r = new Router([cpu, cpu1]);
    for (const d of ['cpu', { key: 'cpu' }, 42, null]) expect(thrown(() => r.seed(1, d as never))).toBeInstanceOf(ArgumentError);
    expect(() => r.seed(1, r.parseDevice('cpu:1'))).not.toThrow();
    expect(() => r.seed(1, CpuDevice.Cpu as never)).toThrow(/is not a device of/);
  });
});
