/**
 * The base of decorators (Autodiff, later Fusion, Remote): forwards every member of the backend
 * contract to the inner backend, so a decorator is only what it changes.
 */
import type { Device } from '../devices/device.js';
import type { TypedArray } from '../ir/dtype.js';
import type { OpAttrs, OpName, OpRecord } from '../ir/ops.js';
import { checkBackend } from '../ir/validate.js';
import type { MemoryInfo } from '../memory/info.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Backend, Handle, TensorRef } from './backend.js';

export type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

export abstract class Decorator<B extends Backend> implements Backend<DeviceOf<B>> {
  abstract readonly name: string;
  abstract readonly autodiff: boolean;
  readonly runtime: Runtime;

  constructor(readonly inner: B) {
    this.runtime = checkBackend(new.target.name, inner).runtime;
  }

  defaultDevice(): DeviceOf<B> {
    return this.inner.defaultDevice() as DeviceOf<B>;
  }
  owns(device: Device): device is DeviceOf<B> {
    return this.inner.owns(device);
  }
  checkDevice(op: string, device: Device): void {
    this.inner.checkDevice(op, device);
  }
  deviceOf(key: string): DeviceOf<B> | undefined {
    return this.inner.deviceOf(key) as DeviceOf<B> | undefined;
  }
  place(op: OpName, inputs: readonly Handle[], attrs: OpAttrs[OpName]): Device | undefined {
    return this.inner.place?.(op, inputs, attrs);
  }
  replica(input: Handle, device: Device): Handle | undefined {
    return this.inner.replica?.(input, device);
  }
  fusesElementwise(device: string, elements?: number): boolean {
    return this.inner.fusesElementwise?.(device, elements) ?? true;
  }
  buffersElementwise(device: string): boolean {
    return this.inner.buffersElementwise?.(device) ?? false;
  }
  submit(record: OpRecord): void {
    this.inner.submit(record);
  }
  read(t: TensorRef): Promise<TypedArray> {
    return this.inner.read(t);
  }
  release(t: TensorRef): void {
    this.inner.release(t);
  }
  retain(t: TensorRef): void {
    this.inner.retain(t);
  }
  isLive(t: TensorRef): boolean {
    return this.inner.isLive(t);
  }
  materialize(t: TensorRef): void {
    this.inner.materialize?.(t);
  }
  seed(seed: number, device?: DeviceOf<B>): void {
    this.inner.seed(seed, device);
  }
  randomStream(device: DeviceOf<B>, count: number): { seed: number; counter: number } {
    return this.inner.randomStream(device, count);
  }
  memory(device?: DeviceOf<B>): MemoryInfo {
    return this.inner.memory(device);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}
