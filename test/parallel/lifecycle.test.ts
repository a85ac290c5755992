/**
 * DataParallel's life cycle and its answers to bad input from untyped callers: calls made after
 * close() reject at once (a step issued while close() waits for the step in flight used to hang),
 * close() leaves no timer that keeps the process alive, bad step input rejects the returned
 * promise instead of throwing, bad options and checkpoint arguments are ArgumentErrors naming
 * what is wrong, and a checkpoint that cannot be written leaves no half-written folder.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, SwitchyardError } from '../../src/errors.js';
import type { ModuleRecord } from '../../src/nn/record.js';
import { DataParallel, type DataParallelOptions } from '../../src/parallel/data-parallel.js';
import { ReplicaError } from '../../src/parallel/errors.js';
import type { Batch } from '../../src/parallel/protocol.js';
import { mlp, type MlpOptions } from './fixtures/mlp-task.js';

/** Closes `dp` with timers faked (set by the caller), then makes them real again. */
async function closed(dp: DataParallel): Promise<void> {
  try {
    await dp.close();
  } finally {
    vi.useRealTimers();
  }
}

const TASK = new URL('./fixtures/mlp-task.ts', import.meta.url);
const SIZES = [6, 8, 3];
const B = 10;
const OPTIONS: MlpOptions = { sizes: SIZES, optimizer: 'sgd', lr: 0.3, momentum: 0.5 };
const host = new Autodiff(new Cpu({ threads: 0 }));
const dirs: string[] = [];
afterAll(async () => {
  await host.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function batch(step: number): Batch {
  const x = Float32Array.from({ length: B * SIZES[0]! }, (_, i) => Math.sin(0.7 * i + step));
  const y = Int32Array.from({ length: B }, (_, i) => (i + step) % SIZES[2]!);
  return { x: { data: x, shape: [B, SIZES[0]!] }, y: { data: y, shape: [B] } };
}

async function record(): Promise<ModuleRecord> {
  host.seed(9);
  return mlp(host, host.defaultDevice(), SIZES).toRecord();
}

async function start(extra: Partial<DataParallelOptions<MlpOptions>> = {}): Promise<DataParallel> {
  return DataParallel.create<MlpOptions>({ task: TASK, module: await record(), devices: 'cpu:worker*2', split: 'even', options: OPTIONS, onNotice: () => undefined, ...extra });
}

/** Calls a method the way untyped JavaScript may: the arguments go through `unknown` on purpose. */
function untyped(target: object, method: string, ...args: unknown[]): unknown {
  const fn: unknown = Reflect.get(target, method);
  if (typeof fn !== 'function') throw new Error(`no method ${method}`);
  return Reflect.apply(fn, target, args);
}

describe('close()', () => {
  test('close() leaves no timer behind (the process can exit as soon as it resolves)', async () => {
    const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const idle = timers();
    const dp = await start();
    await dp.step(batch(1));
    await dp.close();
    // At most as many as before (others' timers may end meanwhile); a grace timer per replica would add.
    expect(timers()).toBeLessThanOrEqual(idle);
  });

  test('a step issued after close() rejects at once; the steps issued before it run; close() resolves', async () => {
    const dp = await start();
    const before = dp.step(batch(1));
    const closing = dp.close();
    const after = dp.step(batch(2));
    const read = dp.record();
    await expect(after).rejects.toThrow(ArgumentError);
    await expect(after).rejects.toThrow(/DataParallel: this DataParallel is closed/);
    await expect(read).rejects.toThrow(/closed/);
    expect((await before).step).toBe(1);
    await closing;
    expect(dp.replicaInfo.every((r) => r.ended)).toBe(true);
  });

  test('close() from a handler while a loop steps: the loop ends with an error, not a hang', async () => {
    const dp = await start();
    setTimeout(() => void dp.close(), 50);
    let steps = 0;
    const ended = (async () => {
      for (;;) {
        await dp.step(batch(steps));
        steps++;
      }
    })();
    await expect(ended).rejects.toThrow(/closed/);
    await dp.close();
  });

});

describe('bad input from untyped callers', () => {
  test('bad step input rejects the promise step() returns; the instance stays usable', async () => {
    const dp = await start();
    try {
      for (const [args, message] of [
        [[null], /the batch has no inputs/],
        [[{ x: { data: new Float64Array(4), shape: [4] } }], /must hold a Float32Array/],
        [[batch(1), null], /step options must be an object/],
        [[batch(1), { lr: '0.1' }], /lr must be a number >= 0, got 0.1/],
        [[batch(1), { lr: Number.NaN }], /lr must be a number >= 0/],
      ] as const) {
        let result: unknown;
        expect(() => (result = untyped(dp, 'step', ...args))).not.toThrow();
        expect(result).toBeInstanceOf(Promise);
        await expect(result).rejects.toThrow(SwitchyardError);
        await expect(result).rejects.toThrow(message);
      }
      expect((await dp.step(batch(1))).step).toBe(1);
    } finally {
      await dp.close();
    }
  });

  test("a batch the model cannot take fails the step with a ReplicaError whose cause is the replica's own error, with a hint", async () => {
    const dp = await start();
    try {
      const x = new Float32Array(B * 5);
      // From the failure on, timers are faked: the replicas, the failed one too, must end when told
      // to, not at a grace timer's end (which would never fire).
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const failed = dp.step({ x: { data: x, shape: [B, 5] }, y: { data: new Int32Array(B), shape: [B] } });
      await expect(failed).rejects.toThrow(ReplicaError);
      const e: unknown = await failed.catch((err: unknown) => err);
      if (!(e instanceof ReplicaError)) throw new Error('expected a ReplicaError');
      expect(e.message).toMatch(/^DataParallel: replica [01] \(cpu:worker\) failed during 'step': ShapeError: matmul/);
      expect(e.cause).toBeInstanceOf(Error);
      expect(e.cause instanceof Error ? e.cause.name : undefined).toBe('ShapeError');
      expect(e.hint).toMatch(/start a new DataParallel/);
      await closed(dp);
      expect(dp.replicaInfo.every((r) => r.ended)).toBe(true);
    } finally {
      vi.useRealTimers();
      await dp.close();
    }
  });

  test('bad options are ArgumentErrors naming the option, before anything starts', async () => {
    const module = await record();
    const base = { task: TASK, module, devices: 'cpu:worker*2', options: OPTIONS, onNotice: () => undefined };
    const cases: Array<[Record<string, unknown> | null, RegExp]> = [
      [null, /create\(\) needs an options object/],
      [{ ...base, devices: null }, /devices must be a string or an array of strings, got null/],
      [{ ...base, devices: 42 }, /devices must be a string or an array of strings, got number/],
      [{ ...base, split: 5 }, /split must be 'balanced', 'even' or one weight per device \(2\), got number/],
      [{ ...base, split: {} }, /split must be .* got object/],
      [{ ...base, module: null }, /module must be a Module or a module record/],
      [{ ...base, module: {} }, /module must be a Module or a module record/],
      [{ ...base, timeoutMs: -1 }, /timeoutMs must be a number of milliseconds/],
      [{ ...base, timeoutMs: Number.NaN }, /timeoutMs must be/],
      [{ ...base, startTimeoutMs: 0 }, /startTimeoutMs must be/],
      [{ ...base, seed: Number.NaN }, /seed must be an integer/],
      [{ ...base, startStep: -3 }, /startStep must be an integer >= 0/],
    ];
    for (const [options, message] of cases) {
      const made = untyped(DataParallel, 'create', options);
      await expect(made, JSON.stringify(options)).rejects.toThrow(ArgumentError);
      await expect(made).rejects.toThrow(message);
    }
  });

  test('a checkpoint with meta JSON cannot hold, or into a path that is a file, is an ArgumentError and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-lifecycle-'));
    dirs.push(dir);
    const dp = await start();
    try {
      await dp.step(batch(1));
      await expect(dp.checkpoint(join(dir, 'a'), { big: 1n })).rejects.toThrow(/DataParallel.checkpoint: meta must be JSON data/);
      expect(existsSync(join(dir, 'a'))).toBe(false);
      const file = join(dir, 'file');
      writeFileSync(file, 'not a folder');
      await expect(dp.checkpoint(file)).rejects.toThrow(/DataParallel.checkpoint: could not write a checkpoint into/);
      // The failures did not end the instance: a checkpoint into a good folder is written.
      const sub = await dp.checkpoint(join(dir, 'b'), { epoch: 1 });
      expect(readdirSync(sub).sort()).toEqual(['model.safetensors', 'optimizer.safetensors', 'trainer.json']);
      expect(readdirSync(join(dir, 'b')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    } finally {
      await dp.close();
    }
  });
});
