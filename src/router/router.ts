/**
 * Router<[Wgpu, Cpu]>: one backend over several. The tensor API builds each record with a
 * MultiDevice tag's key; the Router hands the record, unchanged, to the inner backend that owns
 * that key, through the same Backend contract. A 'transfer' goes to the destination's backend,
 * whose runtime runs it on a bridge (src/scheduler/bridge.ts). Inner backends may be local
 * backends, decorators (Autodiff) or Routers.
 */
import { ArgumentError, DeviceError } from '../errors.js';
import type { Backend, Handle, TensorRef } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { MultiDevice } from '../devices/multi-device.js';
import type { TypedArray } from '../ir/dtype.js';
import type { OpAttrs, OpName, OpRecord } from '../ir/ops.js';
import type { MemoryInfo } from '../memory/info.js';
import { checkDevice, checkKeys, checkOptions, field, show } from '../ir/validate.js';
import type { Runtime } from '../runtime/runtime.js';
import type { Explanation } from '../placement/explain.js';
import { Placement, type PlacementMode, type PlacementOptions } from '../placement/placement.js';
import { parseInnerDevice } from './parse.js';
import type { Backends, DeviceOf, IndexOf, RouterDevice } from './types.js';

export interface RouterOptions {
  /**
   * The device of creation ops that name none (default: the first backend's default device): a
   * MultiDevice, or a device string as `parseDevice` takes ('cpu', 'wgpu:0').
   */
  defaultDevice?: Device | string;
  /**
   * 'explicit' (default): ops run where their inputs live, and inputs on two devices are an error.
   * 'auto': each op runs where it is predicted to finish first, transfers included.
   * 'trace': one step (between `markStep()` calls) is recorded, planned with HEFT and replayed.
   */
  placement?: PlacementMode;
  /** Options of 'auto' and 'trace' placement (profiling, persistence, exploration, drift). */
  placer?: PlacementOptions;
}

/** What a Router and the routers made by its `on(device)` share. */
interface RouterState {
  /** Devices met so far, by key: routes records and lists valid device strings. */
  readonly known: Map<string, MultiDevice>;
  /** Placement in 'auto' and 'trace' modes. */
  placement?: Placement;
}

export class Router<Bs extends Backends> implements Backend<RouterDevice<Bs>> {
  readonly name: string;
  readonly autodiff = false as const;
  readonly backends: Bs;
  readonly runtime: Runtime;
  readonly identity: RouterState;
  private readonly fallback: MultiDevice;
  private readonly known: Map<string, MultiDevice>;
  /** The last device tag checked (the fast path of owns). */
  private last: Device | undefined;

  constructor(backends: Bs, options: RouterOptions = {}, shared?: RouterState) {
    if (!Array.isArray(backends) || backends.length < 2) throw new ArgumentError(`a Router needs at least two backends, got ${Array.isArray(backends) ? backends.length : 0}`, { op: 'Router' });
    // Untyped callers: each entry is read (name, runtime, defaultDevice) below, a TypeError on junk.
    backends.forEach((b: unknown, i) => {
      if (typeof field(b, 'submit') !== 'function' || typeof field(b, 'defaultDevice') !== 'function' || typeof field(b, 'owns') !== 'function') {
        throw new ArgumentError(`backend ${i + 1} of the list is not a backend, got ${show(b)}`, { op: 'Router', hint: 'pass backends such as new Cpu(), await Wgpu.create(), new Autodiff(...), or another Router' });
      }
    });
    checkOptions('Router', options);
    checkKeys('Router', options, ['defaultDevice', 'placement', 'placer']);
    const placer: unknown = options.placer;
    if (placer !== undefined && (typeof placer !== 'object' || placer === null || Array.isArray(placer))) {
      throw new ArgumentError(`placer must be an object of placement options, got ${show(placer)}`, { op: 'Router', hint: "e.g. { placement: 'auto', placer: { drift: 0.2 } }; see the README, section Placement modes" });
    }
    this.backends = backends;
    this.name = `router<${backends.map((b) => b.name).join(', ')}>`;
    this.runtime = backends[0].runtime;
    backends.forEach((b, i) => {
      if (b.runtime !== this.runtime) throw new ArgumentError(`backend ${i + 1} (${b.name}) belongs to another runtime than backend 1`, { op: 'Router', hint: 'build every inner backend with the same runtime' });
    });
    if (shared) this.known = shared.known;
    else {
      this.known = new Map();
      backends.forEach((b, i) => {
        const d = b.defaultDevice();
        const clash = this.known.get(d.key);
        if (clash) {
          throw new ArgumentError(`backends ${clash.index + 1} and ${i + 1} both use device '${d.key}'`, {
            op: 'Router',
            hint: "give each backend its own device, e.g. new Cpu({ device: CpuDevice.named('cpu:1') })",
          });
        }
        this.known.set(d.key, MultiDevice.at(i, d));
      });
    }
    this.identity = shared ?? { known: this.known };
    const fallback = options.defaultDevice;
    // A device string is parsed as on a command line (an unknown one is an ArgumentError listing the valid ones).
    this.fallback =
      fallback === undefined ? this.known.get(backends[0].defaultDevice().key)! : typeof fallback === 'string' ? this.parse('Router', fallback) : this.check('Router', fallback);
    const mode = options.placement ?? 'explicit';
    if (mode !== 'explicit' && mode !== 'auto' && mode !== 'trace') throw new ArgumentError(`placement must be 'explicit', 'auto' or 'trace', got ${JSON.stringify(mode)}`, { op: 'Router' });
    if (!shared && mode !== 'explicit') {
      const devices = backends.map((b, i) => this.known.get(b.defaultDevice().key) ?? MultiDevice.at(i, b.defaultDevice()));
      this.identity.placement = new Placement(mode, { name: this.name, runtime: this.runtime, devices, backend: this, adapters: () => adapterNames(backends) }, options.placer);
    }
  }

  /** Placement of 'auto' and 'trace' routers (undefined when explicit): its profiler, models and counters. */
  get placement(): Placement | undefined {
    return this.identity.placement;
  }

  place(op: OpName, inputs: readonly Handle[], attrs: OpAttrs[OpName]): Device | undefined {
    return this.identity.placement?.place(op, inputs, attrs);
  }

  replica(input: Handle, device: Device): Handle | undefined {
    return this.identity.placement?.replica(input.id, device.key);
  }

  /** Ends a step (a training iteration): 'trace' records, plans and replays steps; explain() reports the last one. */
  markStep(): void {
    this.identity.placement?.markStep();
  }

  /** Where the last step's ops ran and why, predicted against measured times (print it: a markdown table). */
  explain(): Explanation {
    const p = this.identity.placement;
    if (!p) throw new ArgumentError(`${this.name} places ops explicitly: there is no placement to explain`, { op: 'explain', hint: "create the router with { placement: 'auto' } or { placement: 'trace' }" });
    return p.explain();
  }

  /** Measures transfers between every pair of devices (at most `budgetMs`, default 2000) and saves the models. */
  async calibrate(budgetMs?: number): Promise<void> {
    await this.identity.placement?.ready();
    await this.identity.placement?.calibrateTransfers(budgetMs);
  }

  /** The MultiDevice for `inner` on backend `index` (0-based position in the tuple). */
  device<I extends IndexOf<Bs>>(index: I, inner: DeviceOf<Bs[I]>): MultiDevice<I, DeviceOf<Bs[I]>> {
    return this.check('device', MultiDevice.at(index, inner)) as MultiDevice<I, DeviceOf<Bs[I]>>;
  }

  /** A device from a command-line string: an inner key such as 'wgpu:0', 'wgpu:cpu', 'cpu', 'cpu:1'. */
  parseDevice(text: string): RouterDevice<Bs> {
    return this.parse('parseDevice', text);
  }

  private parse(op: string, text: string): RouterDevice<Bs> {
    const s = String(text).trim().toLowerCase();
    const hit = this.known.get(s);
    if (hit) return hit as RouterDevice<Bs>;
    for (let i = 0; i < this.backends.length; i++) {
      const b = this.backends[i]!;
      const d = b.deviceOf(s) ?? parseInnerDevice(b.defaultDevice().backend, s);
      if (d && b.owns(d)) return this.check(op, MultiDevice.at(i, d)) as RouterDevice<Bs>;
    }
    throw new ArgumentError(`unknown device '${text}' for ${this.name}`, { op, hint: `valid devices: ${this.deviceStrings().join(', ')}` });
  }

  /** Device strings this router accepts now (every inner default device, plus devices already used). */
  deviceStrings(): string[] {
    return [...this.known.keys()];
  }

  /** The same router (its tensors combine with this one's) with another default device. */
  on(device: RouterDevice<Bs>): Router<Bs> {
    return new Router(this.backends, { defaultDevice: device }, this.identity);
  }

  defaultDevice(): RouterDevice<Bs> {
    return this.fallback as RouterDevice<Bs>;
  }

  owns(device: Device): device is RouterDevice<Bs> {
    if (device === this.last) return true;
    try {
      this.check('owns', device);
      return true;
    } catch {
      return false;
    }
  }

  checkDevice(op: string, device: Device): void {
    if (device !== this.last) this.check(op, device);
  }

  deviceOf(key: string): RouterDevice<Bs> | undefined {
    return this.lookup(key) as RouterDevice<Bs> | undefined;
  }

  private lookup(key: string): MultiDevice | undefined {
    const hit = this.known.get(key);
    if (hit) return hit;
    for (let i = 0; i < this.backends.length; i++) {
      const d = this.backends[i]!.deviceOf(key);
      if (d) {
        const m = MultiDevice.at(i, d);
        this.known.set(key, m);
        return m;
      }
    }
    return undefined;
  }

  fusesElementwise(device: string, elements?: number): boolean {
    const d = this.lookup(device);
    return d === undefined || (this.backends[d.index]!.fusesElementwise?.(device, elements) ?? true);
  }

  buffersElementwise(device: string): boolean {
    const d = this.lookup(device);
    return d !== undefined && (this.backends[d.index]!.buffersElementwise?.(device) ?? false);
  }

  submit(record: OpRecord): void {
    const d = this.lookup(record.device);
    if (!d) {
      const what = record.op === 'transfer' ? 'destination device' : 'device';
      throw new DeviceError(`unknown ${what} '${record.device}' for ${this.name}`, { op: record.op, devices: [record.device], hint: `valid devices: ${this.deviceStrings().join(', ')}` });
    }
    if (record.op === 'transfer') {
      // The source backend may still buffer the op that computes the input (Fusion): it must exist first.
      const from = this.lookup(record.attrs.from);
      if (from) this.backends[from.index]!.materialize?.({ id: record.inputs[0]!.id, device: from.inner });
    }
    // Placement sees the record first: an inline op completes (and reports its time) inside submit.
    const p = this.identity.placement;
    p?.submitted(record);
    this.backends[d.index]!.submit(record);
    // A copy placement moved is kept (one reference) while its source lives, for later ops there.
    if (p?.keeps(record)) this.retain({ id: record.outputs[0]!.id, device: d });
  }

  materialize(t: TensorRef): void {
    const [b, inner] = this.route(t);
    b.materialize?.(inner);
  }

  read(t: TensorRef): Promise<TypedArray> {
    const [b, inner] = this.route(t);
    return b.read(inner);
  }

  release(t: TensorRef): void {
    const [b, inner] = this.route(t);
    b.release(inner);
    const p = this.identity.placement;
    if (p?.hasReplicas(t.id) && !b.isLive(inner)) for (const copy of p.dropReplicas(t.id)) this.release(copy);
  }

  retain(t: TensorRef): void {
    const [b, inner] = this.route(t);
    b.retain(inner);
  }

  isLive(t: TensorRef): boolean {
    const [b, inner] = this.route(t);
    return b.isLive(inner);
  }

  seed(seed: number, device?: RouterDevice<Bs>): void {
    if (device !== undefined) {
      const d = this.check('seed', device);
      this.backends[d.index]!.seed(seed, d.inner);
    } else for (const b of this.backends) b.seed(seed);
  }

  randomStream(device: RouterDevice<Bs>, count: number): { seed: number; counter: number } {
    const d = this.check('random', device);
    return this.backends[d.index]!.randomStream(d.inner, count);
  }

  memory(device?: RouterDevice<Bs>): MemoryInfo {
    const d = device ? this.check('memory', device) : this.fallback;
    return this.backends[d.index]!.memory(d.inner);
  }

  /** Waits for queued work, then closes every inner backend (the router owns them). */
  async close(): Promise<void> {
    await this.identity.placement?.close();
    // Each inner backend waits for its queued work before it closes.
    for (const b of this.backends) await b.close();
  }

  // ---- internals ----------------------------------------------------------------------------

  /** The inner backend of a tensor and its reference in that backend's terms. */
  private route(t: TensorRef): [Backend, TensorRef] {
    const d = t.device;
    if (MultiDevice.is(d)) {
      const b = this.backends[d.index];
      if (b) return [b, { id: t.id, device: d.inner }];
    }
    const m = this.lookup(d.key);
    if (!m) throw new DeviceError(`tensor #${t.id} lives on ${d.key}, which is not a device of ${this.name}`, { op: 'read', devices: [d.key] });
    return [this.backends[m.index]!, { id: t.id, device: m.inner }];
  }

  /** A MultiDevice of this router, or a DeviceError saying what is wrong with `d`. */
  private check(op: string, d: Device): MultiDevice {
    checkDevice(op, d);
    if (!MultiDevice.is(d)) {
      throw new DeviceError(`device ${d.key} is not a device of ${this.name}`, {
        op,
        devices: [d.key],
        hint: `wrap it with its position: router.device(i, device), MultiDevice.B1(...), or router.parseDevice(${JSON.stringify(d.key)})`,
      });
    }
    const b = this.backends[d.index];
    if (!b || !b.owns(d.inner)) {
      const where = b ? `backend ${d.index + 1} (${b.name}) does not own ${d.inner.key}` : `${this.name} has ${this.backends.length} backends`;
      throw new DeviceError(`${MultiDevice.describe(d)} is not a device of ${this.name}: ${where}`, { op, devices: [d.key], hint: `valid devices: ${this.deviceStrings().join(', ')}` });
    }
    const clash = this.known.get(d.key);
    if (clash && clash.index !== d.index) {
      throw new DeviceError(`${MultiDevice.describe(d)} names device ${d.key}, which is backend ${clash.index + 1}'s`, { op, devices: [d.key], hint: `valid devices: ${this.deviceStrings().join(', ')}` });
    }
    if (!clash) this.known.set(d.key, d);
    this.last = d;
    return d;
  }
}

/** Each backend's name, with its adapter for GPU backends: saved placement models are per adapter. */
async function adapterNames(backends: readonly Backend[]): Promise<string[]> {
  return Promise.all(
    backends.map(async (b) => {
      if (!hasAdapterInfo(b)) return b.name;
      const info = await b.adapterInfo().catch(() => undefined);
      return info ? `${b.name}:${info.vendor}/${info.architecture}/${info.device}/${info.description}` : b.name;
    }),
  );
}

function hasAdapterInfo(b: Backend): b is Backend & { adapterInfo(): Promise<{ vendor: string; architecture: string; device: string; description: string }> } {
  return 'adapterInfo' in b && typeof b.adapterInfo === 'function';
}
