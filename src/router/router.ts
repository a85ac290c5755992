/**
 * Router<[Wgpu, Cpu]>: one backend over several. Each op record goes, unchanged, to the inner
 * backend that owns its inputs' device; a 'transfer' between two devices goes to a bridge
 * executor. Tensor ids are shared with the inner backends (there is one scheduler), so the
 * router only swaps device tags on the way in and out.
 */
import { ArgumentError, DeviceError } from '../errors.js';
import type { ApplyOptions, Backend, Handle } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { MultiDevice } from '../devices/multi-device.js';
import type { TypedArray } from '../ir/dtype.js';
import { newOpId, newTensorId } from '../ir/ids.js';
import type { OpAttrs, OpName, OpRecord } from '../ir/ops.js';
import type { MemoryInfo } from '../memory/info.js';
import { scheduler } from '../scheduler/scheduler.js';
import { Bridge, type TransferPath } from './bridge.js';
import { parseInnerDevice } from './parse.js';
import type { Backends, DeviceOf, IndexOf, RouterDevice } from './types.js';

export interface RouterOptions {
  /** The device of creation ops that name none (default: the first backend's default device). */
  defaultDevice?: Device;
}

function isHost(d: Device): boolean {
  return d.backend === 'cpu';
}

function pathFor(from: Device, to: Device): TransferPath {
  if (isHost(from)) return isHost(to) ? 'host-copy' : 'upload';
  return isHost(to) ? 'readback' : 'readback+upload';
}

export class Router<Bs extends Backends> implements Backend<RouterDevice<Bs>> {
  readonly name: string;
  readonly autodiff = false as const;
  readonly backends: Bs;
  private readonly fallback: MultiDevice;
  /** Devices met so far, by key: resolves a transfer's `to` key and lists valid device strings. */
  private readonly known = new Map<string, MultiDevice>();
  private readonly bridges = new Map<string, Bridge>();
  /** The device of the last op's first input, already checked (the fast path of commonDevice). */
  private last: MultiDevice | undefined;

  constructor(backends: Bs, options: RouterOptions = {}) {
    if (backends.length < 2) throw new ArgumentError(`a Router needs at least two backends, got ${backends.length}`, { op: 'Router' });
    this.backends = backends;
    this.name = `router<${backends.map((b) => b.name).join(', ')}>`;
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
    this.fallback = options.defaultDevice ? this.check('Router', options.defaultDevice) : this.known.get(backends[0].defaultDevice().key)!;
  }

  /** The MultiDevice for `inner` on backend `index` (0-based position in the tuple). */
  device<I extends IndexOf<Bs>>(index: I, inner: DeviceOf<Bs[I]>): MultiDevice<I, DeviceOf<Bs[I]>> {
    return this.check('device', MultiDevice.at(index, inner)) as MultiDevice<I, DeviceOf<Bs[I]>>;
  }

  /** A device from a command-line string: an inner key such as 'wgpu:0', 'wgpu:cpu', 'cpu', 'cpu:1'. */
  parseDevice(text: string): RouterDevice<Bs> {
    const s = text.trim().toLowerCase();
    const hit = this.known.get(s);
    if (hit) return hit as RouterDevice<Bs>;
    for (let i = 0; i < this.backends.length; i++) {
      const b = this.backends[i]!;
      const d = parseInnerDevice(b.defaultDevice().backend, s);
      if (d && b.owns(d)) return this.check('parseDevice', MultiDevice.at(i, d)) as RouterDevice<Bs>;
    }
    throw new ArgumentError(`unknown device '${text}' for ${this.name}`, { op: 'parseDevice', hint: `valid devices: ${this.deviceStrings().join(', ')}` });
  }

  /** Device strings this router accepts now (every inner default device, plus devices already used). */
  deviceStrings(): string[] {
    return [...this.known.keys()];
  }

  /** The same router with another default device (for code that creates tensors without naming one). */
  on(device: RouterDevice<Bs>): Router<Bs> {
    return new Router(this.backends, { defaultDevice: device });
  }

  defaultDevice(): RouterDevice<Bs> {
    return this.fallback as RouterDevice<Bs>;
  }

  apply<N extends OpName>(op: N, inputs: readonly Handle[], attrs: OpAttrs[N], options: ApplyOptions = {}): Handle[] {
    const n = inputs.length;
    const device = n > 0 ? this.commonDevice(op, inputs) : options.device ? this.check(op, options.device) : this.fallback;
    if (op === 'transfer') return this.transfer(inputs[0]!, device, attrs as OpAttrs['transfer'], options);
    const inner: Handle[] = new Array<Handle>(n);
    for (let i = 0; i < n; i++) {
      const h = inputs[i]!;
      inner[i] = { id: h.id, shape: h.shape, dtype: h.dtype, device: device.inner };
    }
    const out = this.backends[device.index]!.apply(op, inner, attrs, n > 0 ? options : { ...options, device: device.inner });
    for (let i = 0; i < out.length; i++) {
      const h = out[i]!;
      out[i] = { id: h.id, shape: h.shape, dtype: h.dtype, device };
    }
    return out;
  }

  read(h: Handle): Promise<TypedArray> {
    return this.owner(h).read(h);
  }

  release(h: Handle): void {
    this.owner(h).release(h);
  }

  retain(h: Handle): void {
    this.owner(h).retain(h);
  }

  isLive(h: Handle): boolean {
    return this.owner(h).isLive(h);
  }

  seed(seed: number, device?: RouterDevice<Bs>): void {
    if (device) {
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

  /** Waits for queued work, then closes every inner backend that can be closed (the router owns them). */
  async close(): Promise<void> {
    await scheduler.flush();
    for (const b of this.backends) {
      const c = b as Partial<{ close(): Promise<void> }>;
      if (typeof c.close === 'function') await c.close();
    }
  }

  // ---- internals ----------------------------------------------------------------------------

  private owner(h: Handle): Backend {
    const d = h.device as Partial<MultiDevice>;
    return this.backends[d.index ?? 0] ?? this.backends[0];
  }

  /** A MultiDevice of this router, or a DeviceError saying what is wrong with `d`. */
  private check(op: string, d: Device): MultiDevice {
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
    if (!this.known.has(d.key)) this.known.set(d.key, d);
    return d;
  }

  private commonDevice(op: string, inputs: readonly Handle[]): MultiDevice {
    const first = inputs[0]!.device;
    // Handles made by this router carry a checked MultiDevice, usually the very object of the last op.
    const d = first === this.last ? this.last : (this.last = this.check(op, first));
    for (let i = 1; i < inputs.length; i++) {
      const other = inputs[i]!.device;
      if (other === first || (other.key === first.key && (other as Partial<MultiDevice>).index === d.index)) continue;
      throw new DeviceError(`inputs live on different devices (${first.key} and ${other.key})`, {
        op,
        devices: [first.key, other.key],
        hint: `move one input first, e.g. y.toDevice(x.device) with x on ${MultiDevice.describe(first)} and y on ${MultiDevice.describe(other)}; nothing moves between devices silently`,
      });
    }
    return d;
  }

  private resolve(key: string): MultiDevice {
    const d = this.known.get(key);
    if (!d) throw new DeviceError(`unknown destination device '${key}' for ${this.name}`, { op: 'transfer', devices: [key], hint: `valid devices: ${this.deviceStrings().join(', ')}` });
    return d;
  }

  private transfer(h: Handle, from: MultiDevice, attrs: OpAttrs['transfer'], options: ApplyOptions): Handle[] {
    const to = options.device ? this.check('transfer', options.device) : this.resolve(attrs.to);
    if (to.key === from.key) return this.apply('reshape', [h], { shape: h.shape }); // same device: a view
    const out: Handle = { id: newTensorId(), shape: h.shape, dtype: h.dtype, device: to };
    const record: OpRecord<'transfer'> = {
      id: newOpId(),
      op: 'transfer',
      device: to.key,
      inputs: [{ id: h.id, shape: h.shape, dtype: h.dtype }],
      outputs: [{ id: out.id, shape: out.shape, dtype: out.dtype }],
      attrs: { from: from.key, to: to.key },
    };
    scheduler.submit(record, this.bridge(from, to));
    return [out];
  }

  private bridge(from: MultiDevice, to: MultiDevice): Bridge {
    const k = `${from.key}>${to.key}`;
    let b = this.bridges.get(k);
    if (!b) {
      const src = this.backends[from.index]!.executorOf(from.inner);
      const dst = this.backends[to.index]!.executorOf(to.inner);
      this.bridges.set(k, (b = new Bridge(src, dst, pathFor(from.inner, to.inner))));
    }
    return b;
  }
}
