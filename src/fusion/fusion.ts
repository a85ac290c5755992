/**
 * Fusion<B>: a decorator that buffers elementwise records (unary, parameterised unary, binary,
 * scalar, clamp, cast, copy, where, maskFill, comparisons) per device and output shape, and hands each
 * buffered chain to the inner backend as one 'fused' record: one kernel on WebGPU, one loop on
 * the CPU. Every other record passes through; it first flushes the groups that hold its inputs.
 * `full` records (constants) are held back: an elementwise op that reads one computes it in its
 * own kernel (a step without operands). Devices whose backend says fusing does not pay
 * (`fusesElementwise`: the CPU with its wasm kernels) get their records unbuffered.
 *
 * A group flushes at the end of the JavaScript turn (a microtask), when an op outside it uses
 * one of its tensors (a matmul, a reduction, a view, a transfer), at a read, and past `maxOps`
 * steps. At flush, only tensors that still have an owner (not disposed, e.g. by `tidy`) are
 * written; steps nobody needs are not computed at all. Steps that read a tensor which may fail at
 * run time (an indexing op's result) go in records of their own (Group.build).
 */
import type { Backend, TensorRef } from '../backends/backend.js';
import { Decorator, type DeviceOf } from '../backends/decorator.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, DisposedError, DeviceError } from '../errors.js';
import type { TypedArray } from '../ir/dtype.js';
import { isFusableRecord, type FusedArg } from '../ir/fused.js';
import type { OpName, OpRecord, TensorMeta } from '../ir/ops.js';
import { checkBoolean, checkInteger, checkOptions } from '../ir/validate.js';
import type { MemoryInfo } from '../memory/info.js';
import { Group, type FusableRecord } from './group.js';

type FullRecord = Extract<OpRecord, { op: 'full' }>;

export interface FusionOptions {
  /** Most ops in one fused kernel (default 64); a longer chain continues in the next group. */
  maxOps?: number;
  /** Whether records are fused (default true); `fusion.enabled = false` turns it off later. */
  enabled?: boolean;
}

const OPTION_KEYS = ['maxOps', 'enabled'];

/** Ops whose kernels check their indices when they run: their results may be failures. */
const FALLIBLE_OPS: ReadonlySet<OpName> = new Set<OpName>(['gather', 'indexSelect', 'scatterAdd']);
/** Fallible tensors remembered (the most recent). */
const FALLIBLE_KEPT = 4096;

interface Pending {
  readonly group: Group;
  readonly step: number;
}

export class Fusion<B extends Backend> extends Decorator<B> {
  readonly name: string;
  readonly autodiff = false as const;
  /** While false, records pass through unbuffered (groups already open still flush). */
  enabled: boolean;
  private readonly maxOps: number;
  /** Open groups by device key and output shape. */
  private readonly groups = new Map<string, Group>();
  /** Tensors computed by buffered steps, by id. */
  private readonly pending = new Map<number, Pending>();
  /** Tensors of groups whose submit failed: their reads reject with the error. */
  private readonly failed = new Map<number, unknown>();
  private readonly devices = new Map<string, Device>();
  private readonly fusing = new Map<string, boolean>();
  /**
   * `full` records held back (with their owner counts): an elementwise op that reads one computes
   * the value in its own kernel, so a constant is submitted only for a consumer outside the
   * groups, a read, or an explicit flush, and not at all if it is freed first.
   */
  private readonly constants = new Map<number, { readonly record: FullRecord; owners: number }>();
  private flushQueued = false;
  /**
   * Recent tensors that may fail at run time (from ops whose kernels check indices, and fused
   * records that read them): groups keep the steps reading them apart (Group.build). Bounded:
   * one forgotten only fuses as it would have before.
   */
  private readonly fallible = new Set<number>();

  constructor(inner: B, options: FusionOptions = {}) {
    super(inner);
    const o = checkOptions('Fusion', options);
    for (const k of Object.keys(o)) {
      if (!OPTION_KEYS.includes(k)) throw new ArgumentError(`unknown option '${k}' (options: ${OPTION_KEYS.join(', ')})`, { op: 'Fusion' });
    }
    if (options.maxOps !== undefined) checkInteger('Fusion', 'maxOps', options.maxOps, 1);
    if (options.enabled !== undefined) checkBoolean('Fusion', 'enabled', options.enabled);
    if (inner.autodiff) {
      throw new ArgumentError(`Fusion cannot wrap an autodiff backend (${inner.name}): gradients would not see the fused ops`, {
        op: 'Fusion',
        hint: `put Autodiff outside: new Autodiff(new Fusion(backend)); see README "Fusion"`,
      });
    }
    this.name = `fusion<${inner.name}>`;
    this.maxOps = options.maxOps ?? 64;
    this.enabled = options.enabled ?? true;
  }

  /** Ops buffered now and not yet handed to the inner backend (for tests and inspection). */
  get bufferedOps(): number {
    let n = 0;
    for (const g of this.groups.values()) n += g.size;
    return n;
  }

  override submit(record: OpRecord): void {
    if (FALLIBLE_OPS.has(record.op)) this.markFallible(record.outputs);
    if (this.enabled && record.op === 'full' && this.fuses(record.device)) {
      this.constants.set(record.outputs[0]!.id, { record, owners: 1 });
      return;
    }
    if (this.enabled && isFusableRecord(record) && this.fuses(record.device)) {
      this.buffer(record);
      return;
    }
    this.flushInputs(record);
    this.inner.submit(record);
  }

  /**
   * Hands every open group, and every constant still owned, to the inner backend now (groups go
   * by themselves at the end of the turn; constants when something outside the groups needs them).
   */
  flush(): void {
    this.flushGroups();
    for (const id of [...this.constants.keys()]) this.submitConstant(id);
  }

  override materialize(t: TensorRef): void {
    const p = this.pending.get(t.id);
    if (p) this.flushGroup(p.group);
    else if (this.constants.has(t.id)) this.submitConstant(t.id);
    else this.inner.materialize?.(t);
  }

  override read(t: TensorRef): Promise<TypedArray> {
    const p = this.pending.get(t.id);
    if (p) this.flushGroup(p.group);
    else if (this.constants.has(t.id)) this.submitConstant(t.id);
    if (this.failed.has(t.id)) return Promise.reject(this.failed.get(t.id));
    return this.inner.read(t);
  }

  override release(t: TensorRef): void {
    const c = this.constants.get(t.id);
    if (c) {
      // Never submitted: the last owner gone, nothing below ever hears of it.
      if (--c.owners <= 0) this.constants.delete(t.id);
      return;
    }
    const p = this.pending.get(t.id);
    if (p) {
      // Buffered: one owner fewer; at zero the value is not written (not computed if unused).
      if (p.group.owners[p.step]! > 0) p.group.owners[p.step]!--;
      return;
    }
    if (this.failed.delete(t.id)) return;
    this.inner.release(t);
  }

  override retain(t: TensorRef): void {
    const c = this.constants.get(t.id);
    if (c) {
      c.owners++;
      return;
    }
    const p = this.pending.get(t.id);
    if (!p) {
      this.inner.retain(t);
      return;
    }
    if (p.group.owners[p.step]! <= 0) throw new DisposedError(`tensor #${t.id} was already freed`, { op: 'retain' });
    p.group.owners[p.step]!++;
  }

  override isLive(t: TensorRef): boolean {
    if (this.constants.has(t.id)) return true;
    const p = this.pending.get(t.id);
    if (p) return p.group.owners[p.step]! > 0;
    if (this.failed.has(t.id)) return true;
    return this.inner.isLive(t);
  }

  override memory(device?: DeviceOf<B>): MemoryInfo {
    this.flush();
    return this.inner.memory(device);
  }

  override async close(): Promise<void> {
    this.flush();
    await this.inner.close();
  }

  // ---- internals ----------------------------------------------------------------------------

  private markFallible(outputs: readonly TensorMeta[]): void {
    for (const m of outputs) this.fallible.add(m.id);
    while (this.fallible.size > FALLIBLE_KEPT) this.fallible.delete(this.fallible.values().next().value!);
  }

  private buffer(record: FusableRecord): void {
    const out = record.outputs[0]!;
    const key = `${record.device}|${out.shape.join(',')}`;
    let g = this.groups.get(key);
    if (g && g.size >= this.maxOps) {
      this.flushGroup(g);
      g = undefined;
    }
    // A tensor buffered in a group of another shape must exist before this op can read it.
    for (const m of record.inputs) {
      const p = this.pending.get(m.id);
      if (p && p.group !== g) this.flushGroup(p.group);
    }
    // Constants become steps of the group, unless they are all the op reads (a program needs an input).
    if (record.inputs.every((m) => this.constants.has(m.id))) for (const m of record.inputs) this.submitConstant(m.id);
    if (!g) {
      g = new Group(key, record.device);
      this.groups.set(key, g);
    }
    const group = g;
    const device = this.device(record.device);
    const args = record.inputs.map((m): FusedArg => {
      const p = this.pending.get(m.id);
      if (p) return { step: p.step };
      const c = this.constants.get(m.id);
      if (c) return { step: group.constant(c.record) };
      return group.input(m, { id: m.id, device }, (ref) => this.inner.retain(ref));
    });
    const step = group.add(record, args);
    this.pending.set(out.id, { group, step });
    if (!this.flushQueued) {
      this.flushQueued = true;
      queueMicrotask(() => {
        this.flushQueued = false;
        this.flushGroups();
      });
    }
  }

  /** Whether records of this device are buffered and fused here (then callers hand over ops one by one). */
  override buffersElementwise(device: string): boolean {
    return (this.enabled && this.fuses(device)) || (this.inner.buffersElementwise?.(device) ?? false);
  }

  /** Whether the inner backend runs fused chains faster on this device (asked once per device). */
  private fuses(key: string): boolean {
    let f = this.fusing.get(key);
    if (f === undefined) {
      f = this.inner.fusesElementwise?.(key) ?? true;
      this.fusing.set(key, f);
    }
    return f;
  }

  private device(key: string): Device {
    let d = this.devices.get(key);
    if (!d) {
      d = this.inner.deviceOf(key);
      if (!d) throw new DeviceError(`${this.name} does not know device '${key}'`, { op: 'fusion', devices: [key], hint: `valid devices come from ${this.inner.name}` });
      this.devices.set(key, d);
    }
    return d;
  }

  private flushGroups(): void {
    for (const g of [...this.groups.values()]) this.flushGroup(g);
  }

  /** Flushes the groups and constants holding any input of `record`. */
  private flushInputs(record: OpRecord): void {
    if (this.pending.size === 0 && this.constants.size === 0) return;
    for (const m of record.inputs) {
      const p = this.pending.get(m.id);
      if (p) this.flushGroup(p.group);
      else if (this.constants.has(m.id)) this.submitConstant(m.id);
    }
  }

  /** Hands a held constant to the inner backend, with as many owners as it has here. */
  private submitConstant(id: number): void {
    const c = this.constants.get(id)!;
    this.constants.delete(id);
    try {
      this.inner.submit(c.record);
    } catch (e) {
      this.failed.set(id, e);
      return;
    }
    const device = this.device(c.record.device);
    for (let k = 1; k < c.owners; k++) this.inner.retain({ id, device });
  }

  private flushGroup(g: Group): void {
    if (this.groups.get(g.key) !== g) return;
    this.groups.delete(g.key);
    for (const m of g.tensors()) this.pending.delete(m.id);
    try {
      for (const { record, fallible } of g.build(() => this.runtime.ids.op(), (id) => this.fallible.has(id))) {
        if (fallible) this.markFallible(record.outputs);
        this.submitBuilt(g, record);
      }
    } finally {
      for (const ref of g.refs) this.inner.release(ref);
    }
  }

  private submitBuilt(g: Group, record: OpRecord): void {
    const device = this.device(g.device);
    try {
      this.inner.submit(record);
    } catch (e) {
      // Flushes also run from a microtask, where a throw would end the process: reads report it.
      for (const m of record.outputs) this.failed.set(m.id, e);
      return;
    }
    // The inner backend gives each output one owner; the group may have counted more (retains).
    for (const m of record.outputs) {
      const owners = g.owners[g.stepOfTensor(m.id)]!;
      for (let k = 1; k < owners; k++) this.inner.retain({ id: m.id, device });
    }
  }
}
