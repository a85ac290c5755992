/**
 * The backend contract the tensor API talks to. Every op of every tensor goes through
 * `apply` as one op record, which is what lets decorators (autodiff, router) wrap a backend
 * by intercepting a single method.
 */
import { DeviceError } from '../errors.js';
import type { Device } from '../devices/device.js';
import type { DType, TypedArray } from '../ir/dtype.js';
import { newOpId, newTensorId } from '../ir/ids.js';
import { inferOutputs } from '../ir/infer.js';
import type { OpAttrs, OpName, OpRecord, TensorMeta } from '../ir/ops.js';
import type { MemoryInfo } from '../memory/info.js';
import type { Executor } from '../scheduler/executor.js';
import { scheduler, type Scheduler } from '../scheduler/scheduler.js';

/** A tensor's identity as the backends see it: the IR meta plus its device. */
export interface Handle extends TensorMeta {
  readonly device: Device;
}

export interface Backend<D extends Device = Device> {
  /** 'cpu', 'wgpu', later 'autodiff<cpu>', 'router<wgpu, cpu>': readable in profiles. */
  readonly name: string;
  /** Type-level brand: only autodiff backends give tensors `backward()`. */
  readonly autodiff: boolean;
  defaultDevice(): D;
  /** Checks, infers output metas, builds the op record and submits it. Throws shape/dtype/device errors synchronously. */
  apply<N extends OpName>(op: N, inputs: readonly Handle[], attrs: OpAttrs[N], options?: ApplyOptions): Handle[];
  /** Contiguous host values of a tensor; rejects with the error of the op that failed to produce it. */
  read(h: Handle): Promise<TypedArray>;
  /** Drops one reference to a tensor (the Tensor object holds one; retain adds more). */
  release(h: Handle): void;
  /** Adds a reference that keeps the tensor's storage alive until a matching release. */
  retain(h: Handle): void;
  /** Whether the handle is still live (not disposed). */
  isLive(h: Handle): boolean;
  /** Reseeds the random stream of a device (all devices when omitted). */
  seed(seed: number, device?: D): void;
  /** Claims `count` positions of a device's random stream. */
  randomStream(device: D, count: number): { seed: number; counter: number };
  memory(device?: D): MemoryInfo;
}

export interface ApplyOptions {
  /** For creation ops (no inputs): the device to create on. */
  device?: Device;
  /** For creation ops: output shape and dtype. */
  outputs?: ReadonlyArray<{ shape: readonly number[]; dtype: DType }>;
  /** Host data travelling beside the record (fromData). */
  payload?: TypedArray;
}

export function commonDevice(op: string, inputs: readonly Handle[]): Device | undefined {
  const first = inputs[0]?.device;
  for (const h of inputs) {
    if (h.device.key !== first!.key) {
      throw new DeviceError(`inputs live on different devices (${first!.key} and ${h.device.key})`, {
        op,
        devices: [first!.key, h.device.key],
        hint: `move one input first with t.toDevice(device) (through a Router over both backends); nothing moves between devices silently`,
      });
    }
  }
  return first;
}

/** A backend that runs records on executors it owns, one per device, through the shared scheduler. */
export abstract class LocalBackend<D extends Device, S> implements Backend<D> {
  abstract readonly name: string;
  readonly autodiff = false as const;
  protected readonly scheduler: Scheduler = scheduler;
  private readonly streams = new Map<string, { seed: number; counter: number }>();

  abstract defaultDevice(): D;
  protected abstract executor(device: D): Executor<S>;
  protected abstract ownsDevice(device: Device): device is D;

  /** The executor of one device, for routers and bridges that submit records themselves. */
  executorOf(device: D): Executor<S> {
    return this.executor(device);
  }

  /** Whether `device` is one of this backend's devices. */
  owns(device: Device): device is D {
    return this.ownsDevice(device);
  }

  apply<N extends OpName>(op: N, inputs: readonly Handle[], attrs: OpAttrs[N], options: ApplyOptions = {}): Handle[] {
    const device = (commonDevice(op, inputs) ?? options.device ?? this.defaultDevice()) as Device;
    if (!this.ownsDevice(device)) {
      throw new DeviceError(`device ${device.key} does not belong to backend ${this.name}`, {
        op,
        devices: [device.key],
        hint: 'create tensors through the backend that owns the device, or use a Router over several backends',
      });
    }
    if (op === 'transfer') {
      const to = (attrs as OpAttrs['transfer']).to;
      if (to === device.key) return this.apply('reshape', inputs, { shape: inputs[0]!.shape }); // same device: a view
      // Moving between devices needs two executors: only a Router (its bridge) can do it.
      throw new DeviceError(`backend ${this.name} cannot move a tensor to another device`, {
        op,
        devices: [device.key, to],
        hint: 'build tensors through a Router over both backends, then call t.toDevice(...)',
      });
    }
    const metas = options.outputs ?? inferOutputs(op, inputs, attrs);
    const outputs: Handle[] = metas.map((m) => ({ id: newTensorId(), shape: [...m.shape], dtype: m.dtype, device }));
    const record: OpRecord<N> = {
      id: newOpId(),
      op,
      device: device.key,
      inputs: inputs.map(({ id, shape, dtype }) => ({ id, shape, dtype })),
      outputs: outputs.map(({ id, shape, dtype }) => ({ id, shape, dtype })),
      attrs,
    };
    this.scheduler.submit(record, this.executor(device), options.payload);
    return outputs;
  }

  read(h: Handle): Promise<TypedArray> {
    return this.scheduler.use(h.id, 'toData', (storage, ex) => ex.read(storage));
  }

  release(h: Handle): void {
    this.scheduler.release(h.id);
  }

  retain(h: Handle): void {
    this.scheduler.retain(h.id);
  }

  isLive(h: Handle): boolean {
    return this.scheduler.has(h.id);
  }

  seed(seed: number, device?: D): void {
    if (device) this.streams.set(device.key, { seed: seed >>> 0, counter: 0 });
    else {
      this.streams.clear();
      this.defaultSeed = seed >>> 0;
    }
  }

  private defaultSeed = (Math.random() * 2 ** 32) >>> 0;

  randomStream(device: D, count: number): { seed: number; counter: number } {
    let s = this.streams.get(device.key);
    if (!s) {
      s = { seed: this.defaultSeed, counter: 0 };
      this.streams.set(device.key, s);
    }
    const out = { seed: s.seed, counter: s.counter };
    // Normal draws use two stream positions per element.
    s.counter = (s.counter + 2 * count) % 2 ** 32;
    return out;
  }

  abstract memory(device?: D): MemoryInfo;
}
