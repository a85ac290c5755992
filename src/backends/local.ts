/**
 * A backend that runs records on executors it owns, one per device, through its runtime's
 * scheduler (one lane per device). Cpu and Wgpu are local backends.
 */
import { ArgumentError, DeviceError } from '../errors.js';
import { checkDevice, field, show } from '../ir/validate.js';
import type { Device } from '../devices/device.js';
import type { TypedArray } from '../ir/dtype.js';
import type { OpRecord } from '../ir/ops.js';
import type { MemoryInfo } from '../memory/info.js';
import { Runtime } from '../runtime/runtime.js';
import type { Executor } from '../scheduler/executor.js';
import { foreignDevice, type Backend, type TensorRef } from './backend.js';

export abstract class LocalBackend<D extends Device, S> implements Backend<D> {
  abstract readonly name: string;
  readonly autodiff = false as const;
  readonly runtime: Runtime;
  private readonly streams = new Map<string, { seed: number; counter: number }>();
  private defaultSeed = (Math.random() * 2 ** 32) >>> 0;

  constructor(runtime: Runtime = Runtime.default) {
    // Untyped callers: a stand-in object would fail later with a bare TypeError (runtime.memory...).
    if (!(runtime instanceof Runtime)) throw new ArgumentError(`runtime must be a Runtime (new Runtime()), got ${show(runtime)}`, { op: new.target.name, hint: "omit it to use this thread's default runtime" });
    this.runtime = runtime;
  }

  abstract defaultDevice(): D;
  abstract owns(device: Device): device is D;
  abstract deviceOf(key: string): D | undefined;
  protected abstract executor(device: D): Executor<S>;
  abstract memory(device?: D): MemoryInfo;
  abstract close(): Promise<void>;

  checkDevice(op: string, device: Device): void {
    if (this.owns(device)) return;
    if (op === 'toDevice') {
      throw new DeviceError(`backend ${this.name} cannot move a tensor to another device (${device.key})`, {
        op,
        devices: [device.key],
        hint: 'build tensors through a Router over both backends, then call t.toDevice(...)',
      });
    }
    throw foreignDevice(op, this, device);
  }

  submit(record: OpRecord): void {
    checkRecord(record);
    const device = this.deviceOf(record.device);
    if (!device) throw foreignDevice(record.op, this, { backend: '?', key: record.device });
    this.runtime.scheduler.submit(record, this.executor(device));
  }

  /** Resolves when every op submitted so far has finished. */
  protected flush(): Promise<void> {
    return this.runtime.scheduler.flush();
  }

  read(t: TensorRef): Promise<TypedArray> {
    checkRef('read', t);
    return this.runtime.scheduler.use(t.id, 'toData', (storage, ex) => ex.read(storage));
  }

  release(t: TensorRef): void {
    checkRef('release', t);
    this.runtime.scheduler.release(t.id);
  }

  retain(t: TensorRef): void {
    checkRef('retain', t);
    this.runtime.scheduler.retain(t.id);
  }

  isLive(t: TensorRef): boolean {
    checkRef('isLive', t);
    return this.runtime.scheduler.has(t.id);
  }

  seed(seed: number, device?: D): void {
    const s = seed32(seed);
    if (device !== undefined) {
      // A device of another backend (or no device at all) would get a stream nothing ever draws from.
      this.checkDevice('seed', checkDevice('seed', device));
      this.streams.set(device.key, { seed: s, counter: 0 });
    } else {
      this.streams.clear();
      this.defaultSeed = s;
    }
  }

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
}

/** A tensor reference ({ id, device }) from an untyped caller: a typed error instead of a TypeError on `.id`. */
function checkRef(op: string, t: unknown): void {
  if (typeof field(t, 'id') !== 'number') throw new ArgumentError(`expected a tensor reference { id, device }, got ${show(t)}`, { op, hint: 'use the tensor API (t.dispose(), t.toData()); backends take what it passes' });
}

/** An op record from an untyped caller: it must at least name its op and device. */
function checkRecord(record: unknown): void {
  if (typeof field(record, 'op') !== 'string' || typeof field(record, 'device') !== 'string') {
    throw new ArgumentError(`expected an op record { op, device, inputs, outputs, attrs }, got ${show(record)}`, { op: 'submit', hint: 'build records through the tensor API (fromData, t.add, ...), not by hand' });
  }
}

/**
 * A seed as the 32 bits the generator takes: any safe integer (as torch.manual_seed takes 64-bit
 * ones). Seeds in [0, 2^32) are used as they are; larger or negative ones fold their high bits in,
 * so that seeds differing there still give different streams. Anything else is refused: a string
 * or NaN used to give seed 0's stream, and 1.5 seed 1's.
 */
function seed32(seed: unknown): number {
  if (typeof seed !== 'number' || !Number.isSafeInteger(seed)) throw new ArgumentError(`seed must be an integer, got ${show(seed)}`, { op: 'seed' });
  const lo = seed >>> 0;
  const hi = Math.floor(seed / 2 ** 32);
  return hi === 0 ? lo : (lo ^ Math.imul(hi | 0, 0x9e3779b1)) >>> 0;
}
