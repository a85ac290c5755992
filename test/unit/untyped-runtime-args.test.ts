/** Runtime, scheduler, backend and backward arguments from untyped callers: typed errors. */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { ArgumentError, DeviceError } from '../../src/errors.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { Scheduler } from '../../src/scheduler/scheduler.js';
import { fromData, random } from '../../src/tensor/creation.js';
import { Distribution } from '../../src/index.js';
import { thrown } from '../thrown.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

describe('Runtime and Scheduler options', () => {
  test('highWaterMark must be an integer >= 1', () => {
    for (const hwm of ['x', NaN, -5, 0, 1.5, Infinity]) {
      const e = thrown(() => new Runtime({ highWaterMark: hwm as never }));
      expect(e).toBeInstanceOf(ArgumentError);
      expect(String(e)).toMatch(/Runtime: highWaterMark must be an integer >= 1/);
      expect(thrown(() => new Scheduler(undefined, { highWaterMark: hwm as never }))).toBeInstanceOf(ArgumentError);
    }
    expect(new Runtime({ highWaterMark: 1 }).scheduler.highWaterMark).toBe(1);
  });

  test('unknown option keys are refused', () => {
    const e = thrown(() => new Runtime({ highwatermark: 8 } as never));
    expect(e).toBeInstanceOf(ArgumentError);
    expect(String(e)).toMatch(/unknown option 'highwatermark' \(did you mean 'highWaterMark'\?\)/);
    expect(thrown(() => new Scheduler(undefined, { prefix: 1 } as never))).toBeInstanceOf(ArgumentError);
    expect(new Runtime({ prefix: 7 }).prefix).toBe(7);
  });

  test('lane() takes a device key', () => {
    const s = new Scheduler();
    for (const d of [undefined, {}, '']) expect(thrown(() => s.lane(d as never))).toBeInstanceOf(ArgumentError);
    expect(s.laneInfos()).toEqual([]);
  });
});

describe('backend arguments', () => {
  test('new Cpu({ runtime }) needs a Runtime', () => {
    const e = thrown(() => new Cpu({ threads: 0, runtime: {} as never }));
    expect(e).toBeInstanceOf(ArgumentError);
    expect(String(e)).toMatch(/Cpu: runtime must be a Runtime/);
  });

  test('seed(n, device) with a device that is not this backend\'s reseeds nothing and says so', async () => {
    for (const d of ['cpu', { key: 'zzz' }, 42, {}, null]) expect(thrown(() => cpu.seed(42, d as never))).toBeInstanceOf(ArgumentError);
    expect(thrown(() => cpu.seed(42, CpuDevice.named('cpu:9')))).toBeInstanceOf(DeviceError);
    // Its own device reseeds its stream.
    cpu.seed(42, CpuDevice.Cpu);
    const a = Array.from((await random(cpu, [3], Distribution.Default).toData()).values);
    cpu.seed(42, CpuDevice.Cpu);
    expect(Array.from((await random(cpu, [3], Distribution.Default).toData()).values)).toEqual(a);
  });

  test('release, retain, read and submit of junk are ArgumentErrors', async () => {
    expect(thrown(() => cpu.release(null as never))).toBeInstanceOf(ArgumentError);
    expect(thrown(() => cpu.retain(undefined as never))).toBeInstanceOf(ArgumentError);
    expect(thrown(() => cpu.submit(null as never))).toBeInstanceOf(ArgumentError);
    expect(String(thrown(() => cpu.submit({} as never)))).toMatch(/submit: expected an op record/);
    expect(thrown(() => cpu.read(null as never))).toBeInstanceOf(ArgumentError);
  });
});

describe('backward options', () => {
  test('options that are not an object, unknown keys and a non-boolean retainGraph are refused', () => {
    const ad = new Autodiff(cpu);
    const x = fromData(ad, [1, 2]).requireGrad();
    const y = x.mul(x).sum();
    expect(thrown(() => y.backward(5 as never))).toBeInstanceOf(ArgumentError);
    const typo = thrown(() => y.backward({ retain_graph: true } as never));
    expect(typo).toBeInstanceOf(ArgumentError);
    expect(String(typo)).toMatch(/unknown option 'retain_graph' \(did you mean 'retainGraph'\?\)/);
    expect(thrown(() => y.backward({ retainGraph: 'yes' } as never))).toBeInstanceOf(ArgumentError);
    // The graph is intact after the refusals.
    const g = y.backward();
    expect(g.get(x)).toBeDefined();
    g.dispose();
  });
});

test('Cpu refuses an unknown option key, naming the one it meant', () => {
  expect(thrown(() => new Cpu({ inline_threshold: 0 } as never))).toBeInstanceOf(ArgumentError);
  expect(String(thrown(() => new Cpu({ inline_threshold: 0 } as never)))).toMatch(/Cpu: unknown option 'inline_threshold' \(did you mean 'inlineThreshold'\?\)/);
  expect(String(thrown(() => new Cpu({ workers: 2 } as never)))).toMatch(/Cpu: unknown option 'workers'; hint: Cpu takes 'threads'/);
});

test('Wgpu refuses an unknown option key before it looks for a GPU', () => {
  expect(String(thrown(() => new Wgpu({ batch_size: 8 } as never)))).toMatch(/Wgpu: unknown option 'batch_size' \(did you mean 'batchSize'\?\)/);
});
