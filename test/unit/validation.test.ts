/**
 * Bad input gets a typed error at the call, never a crash, a hang or a wrong answer: one test per
 * case a seeded fuzzer found (test/fuzz/ops.test.ts keeps looking), each with what it must say.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { WgpuDevice } from '../../src/devices/wgpu.js';
import { ArgumentError, DTypeError, DeviceError, KernelError, ShapeError, SwitchyardError } from '../../src/errors.js';
import { arange, fromData, full, ones, random, zeros } from '../../src/tensor/creation.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { amp, data, MultiDevice, nn, optim, parallel, train } from '../../src/index.js';
import { isGradEnabled, noGrad } from '../../src/autodiff/grad-mode.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { Fusion } from '../../src/fusion/fusion.js';
import { memory } from '../../src/memory/info.js';
import { keep, tidy } from '../../src/memory/tidy.js';
import { recordToSafetensors, saveModule } from '../../src/record/module.js';
import { saveTorchStateDict, torchEntries } from '../../src/record/torch.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { scaledDotProductAttention } from '../../src/tensor/attention.js';
import { thrown } from '../thrown.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

/** Calls a method the way plain JavaScript can: any arguments, any receiver kind. */
function untyped(target: object, method: string, ...args: unknown[]): unknown {
  const fn: unknown = Reflect.get(target, method);
  if (typeof fn !== 'function') throw new Error(`no method ${method}`);
  return Reflect.apply(fn, target, args);
}

function expectError(f: () => unknown, type: new (...a: never[]) => SwitchyardError, message?: RegExp): void {
  const e = thrown(f);
  expect(e, `expected a ${type.name}`).toBeInstanceOf(type);
  if (message) expect((e as Error).message).toMatch(message);
}

const x4 = () => fromData(cpu, [1, 2, 3, 4]);

describe('shapes and sizes are checked at the call', () => {
  it('arange with NaN or infinite bounds is an ArgumentError, not a tensor of shape [NaN]', () => {
    expectError(() => arange(cpu, NaN, 5), ArgumentError, /start must be a finite number, got NaN/);
    expectError(() => arange(cpu, 0, Infinity), ArgumentError, /end must be a finite number/);
    expectError(() => arange(cpu, 0, 5, NaN), ArgumentError, /step/);
    expectError(() => arange(cpu, 0, 3e9), ArgumentError, /do not fit int32/);
  });

  it('slice and narrow bounds must be integers: NaN is an ArgumentError', () => {
    expectError(() => x4().slice([[0, NaN]]), ArgumentError, /end for dim 0 must be an integer or null, got NaN/);
    expectError(() => x4().narrow(0, NaN, 1), ArgumentError, /start must be an integer, got NaN/);
    expectError(() => x4().narrow(0, 0, NaN), ArgumentError, /length must be an integer/);
  });

  it('expand targets must be integer dims >= 0 (or -1)', () => {
    const one = ones(cpu, [1]);
    expectError(() => one.expand([1.5]), ShapeError, /dim 1.5/);
    expectError(() => one.expand([-3]), ShapeError, /dim -3/);
    expectError(() => one.expand([0, 1e308]), ShapeError, /dim 1e\+308/);
    expectError(() => one.expand([2 ** 53]), ShapeError);
  });

  it('creation dims of 2^53 or 1e308 are rejected at the call, naming the shape', () => {
    expectError(() => zeros(cpu, [2 ** 53]), ArgumentError, /shape \[9007199254740992\] has dim/);
    expectError(() => zeros(cpu, [1e308]), ArgumentError, /dims are integers >= 0/);
    expectError(() => zeros(cpu, [-1]), ArgumentError);
    expectError(() => zeros(cpu, [2.5]), ArgumentError);
    expectError(() => random(cpu, [NaN]), ArgumentError);
    expectError(() => full(cpu, 3 as never, 1), ArgumentError, /must be an array/);
  });

  it('a size beyond what a tensor can hold names the elements, the bytes and the limit', () => {
    expectError(() => zeros(cpu, [2 ** 20, 2 ** 20]), ShapeError, /1099511627776 elements \(4398046511104 bytes of float32\); a tensor holds at most 4294967295/);
    // Also the results of ops: a broadcast that would be too large fails at the call.
    const col = zeros(cpu, [2 ** 17, 1]);
    const row = zeros(cpu, [1, 2 ** 17]);
    expectError(() => col.add(row), ShapeError, /17179869184 elements/);
  });

  it('memory the runtime cannot allocate is a KernelError naming the bytes, not a bare RangeError', async () => {
    const refusing = new Cpu({
      threads: 0,
      device: CpuDevice.named('cpu:refusing'),
      allocator: {
        alloc: () => {
          throw new RangeError('Array buffer allocation failed');
        },
        free: () => undefined,
        stats: () => ({ liveBytes: 0, pooledBytes: 0, liveBuffers: 0 }),
      },
    });
    const e = await zeros(refusing, [1000, 1000]).toData().catch((err: unknown) => err);
    expect(e).toBeInstanceOf(KernelError);
    expect((e as Error).message).toMatch(/could not allocate 4000000 bytes for a float32 tensor of shape \[1000, 1000\]/);
    await refusing.close();
  });

  it('a dim of -0 (from arithmetic in untyped code) is stored as 0', () => {
    const positive = (shape: readonly number[]): boolean => shape.every((d) => !Object.is(d, -0));
    const x = zeros(cpu, [1, 1, 3], { dtype: 'int32' });
    const k = untyped(x, 'topk', -0, 0) as { values: Tensor<Cpu>; indices: Tensor<Cpu> };
    const outputs = [zeros(cpu, [-0]), full(cpu, [2, -0], 1), fromData(cpu, [], { shape: [-0] }), zeros(cpu, [0]).reshape([-0]), zeros(cpu, [1]).expand([-0]), k.values, k.indices, x.narrow(2, 1, -0)];
    x.dispose();
    for (const t of outputs) {
      expect(positive(t.shape)).toBe(true);
      expect(Object.is(t.size, 0)).toBe(true);
      t.dispose();
    }
  });

  it('ranks beyond 12 are rejected everywhere', () => {
    expectError(() => zeros(cpu, new Array<number>(13).fill(1)), ArgumentError, /at most 12 dims/);
    expectError(() => zeros(cpu, new Array<number>(12).fill(1)).unsqueeze(0), ShapeError, /at most 12 dims/);
  });
});

describe('fractional slices are rejected (they gave wrong values on WebGPU)', () => {
  it('slice([[0.5, 2.5]]) and narrow(0, 0.5, 2) are ArgumentErrors', () => {
    expectError(() => x4().slice([[0.5, 2.5]]), ArgumentError, /start for dim 0 must be an integer or null, got 0.5/);
    expectError(() => x4().narrow(0, 0.5, 2), ArgumentError);
    expectError(() => x4().slice([{ start: 0, end: 2, step: 1.5 }]), ArgumentError);
    expectError(() => x4().slice([0.5]), ArgumentError);
    expectError(() => x4().slice([{ start: 0, stop: 2 } as never]), ArgumentError, /unknown key 'stop'/);
  });

  it('integer slices still work, with null for open ends', async () => {
    expect(Array.from((await x4().slice([[1, null]]).toData()).values)).toEqual([2, 3, 4]);
    expect(Array.from((await x4().narrow(0, 1, 2).toData()).values)).toEqual([2, 3]);
  });
});

describe('out-of-range indices are one error class everywhere', () => {
  it('gather / indexSelect / scatterAdd on the CPU pool reject with ArgumentError, as inline', async () => {
    const pooled = new Cpu({ threads: 2, inlineThreshold: 0 });
    try {
      for (const backend of [cpu, pooled]) {
        const x = zeros(backend, [64, 64]);
        const bad = full(backend, [64, 64], 64, { dtype: 'int32' });
        await expect(x.gather(0, bad).toData()).rejects.toBeInstanceOf(ArgumentError);
        await expect(x.scatterAdd(0, bad, x).toData()).rejects.toBeInstanceOf(ArgumentError);
        await expect(x.indexSelect(1, full(backend, [64], -1, { dtype: 'int32' })).toData()).rejects.toThrow(/index -1 is out of range for dim 1 of size 64/);
        // The same tensors with good indices still work.
        expect((await x.gather(0, zeros(backend, [64, 64], { dtype: 'int32' })).toData()).values.length).toBe(64 * 64);
      }
    } finally {
      await pooled.close();
    }
  });
});

describe('untyped callers get Switchyard errors', () => {
  it('a non-tensor operand is an ArgumentError, not "t.live is not a function"', () => {
    expectError(() => untyped(x4(), 'add', {}), ArgumentError, /the other operand \(a tensor or a number\) must be a number, got an object/);
    expectError(() => untyped(x4(), 'add', '2'), ArgumentError);
    expectError(() => untyped(x4(), 'matmul', [1, 2]), ArgumentError, /must be a tensor/);
    expectError(() => untyped(x4(), 'where', 'yes', 1), ArgumentError);
    expectError(() => Tensor.cat([x4(), {} as never]), ArgumentError);
    expectError(() => Tensor.stack('ab' as never), ArgumentError);
  });

  it('unknown dtypes are DTypeErrors at the call: cast, creation, options', () => {
    expectError(() => untyped(x4(), 'cast', 'float64'), DTypeError, /unknown dtype "float64"/);
    expectError(() => zeros(cpu, [0], { dtype: 'int64' as never }), DTypeError);
    expectError(() => fromData(cpu, [1, 2], { dtype: 'int64' as never }), DTypeError);
    expectError(() => arange(cpu, 3, undefined, 1, { dtype: 'uint8' as never }), DTypeError);
  });

  it('device tags with a bad index or name are ArgumentErrors (not RangeError)', () => {
    expectError(() => WgpuDevice.DiscreteGpu(-1), ArgumentError);
    expectError(() => WgpuDevice.byName(''), ArgumentError);
    expectError(() => CpuDevice.named('gpu' as never), ArgumentError);
    expectError(() => zeros(cpu, [2], { device: 'cpu' as never }), ArgumentError, /device must be a device tag/);
    expectError(() => zeros(cpu, [2], { device: WgpuDevice.Default }), DeviceError);
  });

  it('fromData on arrays nested 20,000 deep is an ArgumentError, not a stack overflow', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expectError(() => fromData(cpu, deep as never), ArgumentError, /deeper than 12/);
  });

  it('fromData values that are not numbers or booleans are ArgumentErrors', () => {
    expectError(() => fromData(cpu, [1, '2'] as never), ArgumentError, /got "2" \(a string\)/);
    expectError(() => fromData(cpu, [[1], [null]] as never), ArgumentError);
    expectError(() => fromData(cpu, new DataView(new ArrayBuffer(4)) as never), ArgumentError);
    expectError(() => fromData({} as never, [1]), ArgumentError, /must be a backend/);
  });

  it('other argument kinds: dims, keepDims, sizes, scalars', () => {
    expectError(() => untyped(x4(), 'sum', '0'), ShapeError, /dim "0" \(a string\) is not an integer/);
    expectError(() => untyped(x4(), 'sum', 0, 'yes'), ArgumentError, /keepDims must be true or false/);
    expectError(() => untyped(x4(), 'reshape', 4), ShapeError, /must be an array/);
    expectError(() => untyped(x4(), 'permute', 0), ArgumentError);
    expectError(() => untyped(x4(), 'split', '2'), ArgumentError);
    expectError(() => untyped(x4(), 'repeat', [1e308]), ArgumentError);
    expectError(() => untyped(x4(), 'clamp', NaN, 1), ArgumentError);
    expectError(() => untyped(x4(), 'maskFill', x4().greater(2), 'x'), ArgumentError);
    expectError(() => untyped(x4(), 'unary', 'matmul'), ArgumentError, /unknown unary op/);
    expectError(() => new Cpu({ threads: -1 }), ArgumentError);
    // A rank-0 tensor takes dims 0 and -1, as a list too; anything else is a Switchyard error.
    const scalar = fromData(cpu, [1], { shape: [] });
    expectError(() => untyped(scalar, 'sum', new Date(0)), ArgumentError, /dims must be a dim or a list of dims/);
    expectError(() => untyped(scalar, 'sum', [0, -1]), ShapeError, /appears more than once/);
    expectError(() => untyped(scalar, 'sum', [1]), ShapeError, /out of range/);
  });

  it('entry points called with the wrong kind of argument: ArgumentErrors naming them, not TypeErrors', async () => {
    const call = (f: unknown, ...args: unknown[]): unknown => {
      if (typeof f !== 'function') throw new Error('not a function');
      return Reflect.apply(f, undefined, args);
    };
    const make = (C: unknown, ...args: unknown[]): unknown => {
      if (typeof C !== 'function') throw new Error('not a class');
      return Reflect.construct(C, args);
    };
    expectError(() => make(Cpu, null), ArgumentError, /Cpu: options must be an object, got null/);
    expectError(() => make(Wgpu, null), ArgumentError, /Wgpu: options must be an object, got null/);
    expectError(() => make(Runtime, null), ArgumentError, /Runtime: options must be an object/);
    expectError(() => make(Autodiff, undefined), ArgumentError, /Autodiff: the first argument must be a backend/);
    expectError(() => make(Fusion, {}), ArgumentError, /Fusion: the first argument must be a backend/);
    expectError(() => call(tidy, cpu), ArgumentError, /tidy\(\) takes a function, got object/);
    expectError(() => call(tidy, () => 1, {}), ArgumentError, /the runtime must be a Runtime/);
    expectError(() => call(noGrad, undefined), ArgumentError, /noGrad\(\) takes a function, got undefined/);
    expectError(() => call(keep, null), ArgumentError, /keep\(\) takes a tensor/);
    expectError(() => call(isGradEnabled, null), ArgumentError, /must be a Runtime/);
    expectError(() => call(memory, undefined), ArgumentError, /memory\(\) takes a device tag/);
    expectError(() => call(recordToSafetensors, undefined), ArgumentError, /recordToSafetensors: the record must be/);
    expectError(() => call(torchEntries, {}), ArgumentError, /torchEntries: a module is needed/);
    expectError(() => call(scaledDotProductAttention, x4(), undefined, x4()), ArgumentError, /key must be a tensor/);
    expectError(() => untyped(x4(), 'grad', undefined), ArgumentError, /grad: grads must be the Gradients that backward\(\) returned/);
    await expect(call(saveModule, 'model')).rejects.toThrow(/saveModule takes a module/);
    await expect(call(saveTorchStateDict, null)).rejects.toThrow(/saveTorchStateDict: a module is needed, got null/);
  });

  it('layers, losses, optimizers and the training helpers called untyped: ArgumentErrors naming them', async () => {
    const make = (C: unknown, ...args: unknown[]): unknown => {
      if (typeof C !== 'function') throw new Error('not a class');
      return Reflect.construct(C, args);
    };
    const call = (f: unknown, ...args: unknown[]): unknown => {
      if (typeof f !== 'function') throw new Error('not a function');
      return Reflect.apply(f, undefined, args);
    };
    expectError(() => make(nn.LayerNorm, undefined, 4), ArgumentError, /LayerNorm: the first argument must be a backend/);
    expectError(() => make(nn.LayerNorm, cpu, 0), ArgumentError, /LayerNorm: dim must be an integer >= 1, got 0/);
    expectError(() => make(nn.LayerNorm, cpu, 4, Number.NaN), ArgumentError, /LayerNorm: eps must be a finite number >= 0/);
    expectError(() => make(nn.BatchNorm2d, cpu, 3, null), ArgumentError, /BatchNorm2d: options must be an object, got null/);
    expectError(() => make(nn.BatchNorm1d, cpu, 3, { momentum: 2 }), ArgumentError, /BatchNorm1d: momentum must be a number in \[0, 1\] or null/);
    expectError(() => make(nn.RMSNorm, cpu, undefined), ArgumentError, /RMSNorm: normalizedShape must be an integer >= 1/);
    expectError(() => make(nn.PositionWiseFeedForward, cpu, undefined), ArgumentError, /PositionWiseFeedForward: a config/);
    expectError(() => make(nn.TransformerEncoderLayer, undefined, 8, 2), ArgumentError, /TransformerEncoderLayer: the first argument must be a backend/);
    const p = fromData(cpu, [1, 2]);
    for (const loss of ['mseLoss', 'l1Loss', 'smoothL1Loss', 'huberLoss', 'klDiv', 'binaryCrossEntropy', 'binaryCrossEntropyWithLogits'] as const) {
      expectError(() => call(nn[loss], p, p, null), ArgumentError, new RegExp(`${loss}: options must be an object, got null`));
    }
    expectError(() => call(nn.crossEntropy, fromData(cpu, [[1, 2]]), fromData(cpu, new Int32Array([1])), null), ArgumentError, /crossEntropy: options must be an object/);
    expectError(() => make(optim.RMSprop, null), ArgumentError, /RMSprop: options must be an object, got null/);
    expectError(() => make(optim.RMSprop, { alpha: -1 }), ArgumentError, /RMSprop: alpha must be/);
    expectError(() => make(optim.Adagrad, { eps: Number.NaN }), ArgumentError, /Adagrad: eps must be/);
    expectError(() => make(optim.Adamax, { betas: [0.9, 1] }), ArgumentError, /Adamax: betas\[1\] must be a number in \[0, 1\)/);
    expectError(() => call(optim.clipGradNorm, undefined, 1), ArgumentError, /clipGradNorm takes ParamGrads/);
    expectError(() => make(amp.GradScaler, null), ArgumentError, /GradScaler: options must be an object/);
    expectError(() => call(amp.autocast, () => 1, null), ArgumentError, /autocast: options must be an object/);
    expectError(() => make(train.EarlyStopping, null), ArgumentError, /EarlyStopping: options must be an object/);
    expectError(() => make(train.Checkpoint, undefined), ArgumentError, /Checkpoint takes options/);
    await expect(call(train.fit, undefined)).rejects.toThrow(/fit\(\) takes \{ model, optimizer, epochs/);
    await expect(call(train.evaluate, {})).rejects.toThrow(/evaluate\(\) takes \{ model, data, loss/);
    await expect(call(train.saveOptimizerState, {})).rejects.toThrow(/saveOptimizerState takes an optimizer/);
    expectError(() => make(data.DataLoader, [1, 2], null), ArgumentError, /DataLoader: options must be an object/);
    expectError(() => make(data.TensorDataset, undefined), ArgumentError, /TensorDataset takes named host tensors/);
    expectError(() => make(data.TensorDataset, { x: [1, 2] }), ArgumentError, /'x' must be a host tensor/);
    expectError(() => call(data.hostTensor, new Float64Array(2)), ArgumentError, /hostTensor takes a Float32Array, Int32Array or Uint8Array/);
    expectError(() => call(data.randomSplit, undefined, [1]), ArgumentError, /randomSplit takes a dataset/);
    expectError(() => call(MultiDevice.B1, undefined), ArgumentError, /MultiDevice: device must be a device tag/);
    expectError(() => call(MultiDevice.at, -1, CpuDevice.Cpu), ArgumentError, /a router position must be an integer >= 0, got -1/);
    expect(call(MultiDevice.is, undefined)).toBe(false);
    for (const helper of ['overlapOf', 'phasesOf', 'renderTimeline'] as const) {
      expectError(() => call(parallel[helper], undefined), ArgumentError, new RegExp(`${helper}: the timeline must be a step result's timeline`));
    }
    expectError(() => call(data.defaultCollate, undefined), ArgumentError, /defaultCollate takes an array of samples/);
    await expect(call(parallel.saveCheckpoint, '/tmp/never-written', {})).rejects.toThrow(/the checkpoint must be \{ model, optimizer, step/);
  });

  it('an error at creation leaves no tensor behind whose finalizer could end the process', async () => {
    const script = fileURLToPath(new URL('../fixtures/bad-dtype-gc.ts', import.meta.url));
    const code = await new Promise<number>((resolve) => {
      execFile(process.execPath, ['--expose-gc', '--import', 'tsx', script], { timeout: 60_000 }, (err) => resolve(err ? (typeof err.code === 'number' ? err.code : -1) : 0));
    });
    expect(code).toBe(0);
  });
});

describe('nothing leaks on an error path', () => {
  /** Runs `f` (which must throw a Switchyard error) and returns how many more CPU storages are live after it. */
  function leakedBy(f: () => unknown): number {
    const before = cpu.memory().tensors;
    expect(thrown(f)).toBeInstanceOf(SwitchyardError);
    return cpu.memory().tensors - before;
  }

  it('maskFill with a mask that does not broadcast, or is not bool', () => {
    const x = zeros(cpu, [2, 3]);
    const wide = zeros(cpu, [4], { dtype: 'bool' });
    expect(leakedBy(() => x.maskFill(wide, 1))).toBe(0);
    const m = zeros(cpu, [3]);
    expect(leakedBy(() => untyped(x, 'maskFill', m, 1))).toBe(0);
  });

  it('where(cond, number): on error, and on success only the result is new', () => {
    const x = zeros(cpu, [2, 3]);
    const notBool = zeros(cpu, [3]);
    expect(leakedBy(() => untyped(x, 'where', notBool, 1))).toBe(0);
    const cond = zeros(cpu, [3], { dtype: 'bool' });
    const before = cpu.memory().tensors;
    const out = x.where(cond, 5);
    expect(cpu.memory().tensors - before).toBe(1);
    out.dispose();
  });

  it('1-D matmul with mismatched inner dims', () => {
    const a = zeros(cpu, [3]);
    const b = zeros(cpu, [4]);
    expect(leakedBy(() => a.matmul(b))).toBe(0);
    const c = zeros(cpu, [4, 2]);
    expect(leakedBy(() => a.matmul(c))).toBe(0);
    expect(leakedBy(() => c.matmul(b))).toBe(0);
  });

  it('var over several dims of an int tensor (untyped): its permuted and merged copies go too', () => {
    const x = zeros(cpu, [3, 2, 3, 2], { dtype: 'int32' });
    expect(leakedBy(() => untyped(x, 'var', [0, 1]))).toBe(0);
    expect(leakedBy(() => untyped(x, 'var', [1, 3], { keepDims: true }))).toBe(0);
  });

  it('topk of a bool scalar (untyped): the line it is reshaped to goes too', () => {
    const b = zeros(cpu, [], { dtype: 'bool' });
    expect(leakedBy(() => untyped(b, 'topk', 0, 0))).toBe(0);
    expect(leakedBy(() => untyped(b, 'topk', 1))).toBe(0);
  });

  it('oneHot of a disposed tensor makes nothing that stays', () => {
    for (const shape of [[0], [2, 1, 2, 0], [3]]) {
      const i = zeros(cpu, shape, { dtype: 'int32' });
      i.dispose();
      expect(leakedBy(() => i.oneHot(4))).toBe(0);
    }
  });

  it('pad of a disposed tensor makes nothing that stays', () => {
    for (const shape of [[4, 3, 1], []]) {
      const x = zeros(cpu, shape);
      x.dispose();
      for (const mode of ['constant', 'reflect', 'replicate', 'circular'] as const) expect(leakedBy(() => x.pad([], mode))).toBe(0);
      expect(leakedBy(() => x.pad(shape.length > 0 ? [1, 1] : [], 'constant', 2))).toBe(0);
    }
  });

  it('Tensor.stack of mismatched dtypes', () => {
    const parts = [zeros(cpu, [2]), zeros(cpu, [2], { dtype: 'int32' }), zeros(cpu, [2])];
    expect(leakedBy(() => Tensor.stack(parts as never))).toBe(0);
  });

  it('softmax of a rank-0 int tensor', () => {
    const s = fromData(cpu, 3, { dtype: 'int32' });
    expect(leakedBy(() => untyped(s, 'softmax'))).toBe(0);
  });

  it('repeat past the size limit', () => {
    const x = zeros(cpu, [2, 2]);
    expect(leakedBy(() => x.repeat([2 ** 16, 2 ** 16]))).toBe(0);
  });
});
