/**
 * The backend contract. The tensor API builds each op's record (src/ir/builder.ts) and submits
 * it; decorators (Autodiff, Router, later Fusion and Remote) receive the record, do what they are
 * for, and forward it through the same contract. Nothing below the tensor API invents ids or
 * shapes: a backend only runs what the record says.
 */
import { DeviceError } from '../errors.js';
import type { Device } from '../devices/device.js';
import type { TypedArray } from '../ir/dtype.js';
import type { OpAttrs, OpName, OpRecord, TensorMeta } from '../ir/ops.js';
import type { MemoryInfo } from '../memory/info.js';
import type { Runtime } from '../runtime/runtime.js';

/** A tensor's identity as the backends see it: the IR meta plus its device tag. */
export interface Handle extends TensorMeta {
  readonly device: Device;
}

/** What reads and reference counts need: the id, and the device tag (a Router routes by it). */
export interface TensorRef {
  readonly id: number;
  readonly device: Device;
}

export interface Backend<D extends Device = Device> {
  /** 'cpu', 'wgpu', 'autodiff<cpu>', 'router<wgpu, cpu>': readable in profiles. */
  readonly name: string;
  /** Type-level brand: only autodiff backends give tensors `backward()`. */
  readonly autodiff: boolean;
  /** The runtime whose ids, scheduler and scopes this backend uses. */
  readonly runtime: Runtime;
  /** Backends that are views of one another (a Router and its `on(device)`) share this. */
  readonly identity?: object;
  defaultDevice(): D;
  /** Whether `device` is one of this backend's devices (a Router also checks the tag's position). */
  owns(device: Device): device is D;
  /** Throws a DeviceError saying why `device` is not one of this backend's (for op `op`). */
  checkDevice(op: string, device: Device): void;
  /** The device tag of a record's device key, if this backend has it. */
  deviceOf(key: string): D | undefined;
  /**
   * Where an op should run, asked by the tensor API before it builds the record (a Router with
   * `placement: 'auto' | 'trace'` answers). A device means: move the inputs that live elsewhere
   * with transfer records, then build the op there. Undefined (or no hook): the inputs' device.
   */
  place?(op: OpName, inputs: readonly Handle[], attrs: OpAttrs[OpName]): Device | undefined;
  /** A live copy of `input` on `device` that a placed op may use instead of a new transfer (a Router keeps the copies it moved). */
  replica?(input: Handle, device: Device): Handle | undefined;
  /**
   * Whether a chain of elementwise ops on this device runs faster as one 'fused' record than op
   * by op (the Fusion decorator asks once per device; no hook means yes), for chains over
   * `elements` values when given (an optimizer asks per parameter). The CPU backend with its SIMD
   * wasm kernels says no: its fused loop is JS, slower than the wasm passes it replaces, except for
   * small chains, where each pass's fixed cost dominates.
   */
  fusesElementwise?(device: string, elements?: number): boolean;
  /**
   * Whether this backend fuses elementwise chains itself on this device (the Fusion decorator,
   * enabled): a caller that could build a 'fused' record hands it the ops one by one instead, so
   * that chains join across callers (an optimizer's updates of same-shape parameters in one
   * kernel, with the gradient ops before them). No hook means no.
   */
  buffersElementwise?(device: string): boolean;
  /** Runs (or queues) one op. Throws synchronously for records it cannot take (wrong device, closed). */
  submit(record: OpRecord): void;
  /** Contiguous host values of a tensor; rejects with the error of the op that failed to produce it. */
  read(t: TensorRef): Promise<TypedArray>;
  /** Drops one reference to a tensor (the Tensor object holds one; retain adds more). */
  release(t: TensorRef): void;
  /** Adds a reference that keeps the tensor's storage alive until a matching release. */
  retain(t: TensorRef): void;
  /** Whether the tensor is still live (not disposed). */
  isLive(t: TensorRef): boolean;
  /**
   * Hands the buffered work that computes `t` to its device now, for a consumer this backend
   * does not see (a Router's transfer goes to the destination's backend). Only backends that
   * buffer records (Fusion) need it; decorators forward it.
   */
  materialize?(t: TensorRef): void;
  /** Reseeds the random stream of a device (all devices when omitted). */
  seed(seed: number, device?: D): void;
  /** Claims `count` positions of a device's random stream. */
  randomStream(device: D, count: number): { seed: number; counter: number };
  memory(device?: D): MemoryInfo;
  /** Waits for queued work, then releases threads and devices. */
  close(): Promise<void>;
}

/** Whether two backends are one (or views of one), so their tensors combine. */
export function sameBackend(a: Backend, b: Backend): boolean {
  return a === b || (a.identity !== undefined && a.identity === b.identity);
}

export function foreignDevice(op: string, backend: { readonly name: string }, device: Device): DeviceError {
  return new DeviceError(`device ${device.key} does not belong to backend ${backend.name}`, {
    op,
    devices: [device.key],
    hint: 'create tensors through the backend that owns the device, or use a Router over several backends',
  });
}
