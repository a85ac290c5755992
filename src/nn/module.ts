/**
 * The Module base. A module's parameters are its fields: Params, sub-Modules, and arrays of
 * either, found in field order and named by their path ('layers.0.weight'), as in PyTorch.
 * Moves, forks and clones keep every ParamId.
 */
import { noGrad } from '../autodiff/grad-mode.js';
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import type { FloatDType } from '../ir/dtype.js';
import { checkBoolean, checkKeys, checkOptions, show } from '../ir/validate.js';
import { sameShape } from '../ir/shape.js';
import { fromData } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { Buffer, Param } from './param.js';
import { checkParamRecord, ownedFloat32, type FromRecordOptions, type ModuleRecord, type ParamRecord } from './record.js';

type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

/**
 * How PyTorch names a field of a module where it differs from ours: its state_dict key (relative
 * to the module; '' drops the level, as for Sequential's `layers`), and the layout change a
 * tensor needs on the way ('transpose' for weights stored [in, out] here and [out, in] in torch;
 * 'count' for an integer counter such as BatchNorm's num_batches_tracked).
 */
export interface TorchKey {
  readonly key: string;
  readonly layout?: 'transpose' | 'count';
}

function fieldsOf(o: object): Array<[string, unknown]> {
  return Object.entries(o) as Array<[string, unknown]>;
}

export abstract class Module<B extends Backend = Backend> {
  /** Training mode (Dropout drops only while training); set with train() / eval(). */
  training = true;

  /**
   * The fields (by local path: 'weight', 'gates.0', 'attn') whose PyTorch names or layouts differ
   * from ours; read by loadTorchStateDict / saveTorchStateDict. Fields not listed keep their name.
   */
  torchKeys(): Readonly<Record<string, TorchKey>> {
    return {};
  }

  /** Calls `fn` on every parameter, depth first in field order, with its dotted name. */
  visit(fn: (param: Param<B>, name: string) => void): void {
    const walk = (value: unknown, name: string): void => {
      if (value instanceof Param) fn(value as Param<B>, name);
      else if (value instanceof Module) for (const [k, v] of fieldsOf(value)) walk(v, name ? `${name}.${k}` : k);
      else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${name}.${i}`));
    };
    for (const [k, v] of fieldsOf(this)) walk(v, k);
  }

  /** Every sub-module (not this one), depth first. */
  modules(): Array<Module<B>> {
    const out: Array<Module<B>> = [];
    const walk = (value: unknown): void => {
      if (value instanceof Module) {
        out.push(value as Module<B>);
        for (const [, v] of fieldsOf(value)) walk(v);
      } else if (Array.isArray(value)) value.forEach(walk);
    };
    for (const [, v] of fieldsOf(this)) walk(v);
    return out;
  }

  namedParams(): Array<[string, Param<B>]> {
    const out: Array<[string, Param<B>]> = [];
    this.visit((p, name) => out.push([name, p]));
    return out;
  }

  /** Each parameter once (a tied or shared one is listed where it first appears), as torch's parameters(). */
  params(): Array<Param<B>> {
    return [...new Set(this.namedParams().map(([, p]) => p))];
  }

  /** The number of scalar parameters, each counted once (buffers such as running statistics not counted). */
  numParams(): number {
    let n = 0;
    for (const p of this.params()) if (!(p instanceof Buffer)) n += p.value.size;
    return n;
  }

  train(on = true): this {
    this.training = on;
    for (const m of this.modules()) m.training = on;
    return this;
  }

  eval(): this {
    return this.train(false);
  }

  /** Moves every parameter to `device`, in place; parameters stay leaves with their ids. */
  toDevice(device: DeviceOf<B>): this {
    this.visit((p) => p.set(noGrad(() => p.value.toDevice(device))));
    return this;
  }

  /**
   * Casts every parameter (buffers too, but not a buffer that `keepsDType`, such as a counter) to
   * `dtype`, in place: torch's `module.half()` / `module.float()`. Ids stay, so saved optimizer
   * state still applies; an optimizer's moments already made keep their dtype (make the optimizer
   * after the cast, as in torch).
   */
  toDType(dtype: FloatDType): this {
    const d: unknown = dtype;
    if (d !== 'float16' && d !== 'float32') throw new DTypeError(`parameters are float16 or float32, got ${show(d)}`, { op: 'Module.toDType', dtypes: [show(d)], hint: "toDType('float16') or toDType('float32')" });
    for (const p of this.params()) if (p.value.dtype !== dtype && !(p instanceof Buffer && p.keepsDType)) p.set(noGrad(() => p.value.cast(dtype)));
    return this;
  }

  /**
   * A copy on `device` whose parameters are detached from this module's graph and require grad
   * again: the way to send a module to another device (or, through a record, a thread).
   */
  fork(device: DeviceOf<B>): this {
    return this.mapParams((p) => p.derive(noGrad(() => p.value.toDevice(device).detach())));
  }

  /** A deep copy with its own storage and the same ParamIds. */
  clone(): this {
    return this.mapParams((p) => p.derive(noGrad(() => p.value.clone())));
  }

  /** Frees every parameter. */
  dispose(): void {
    this.visit((p) => p.dispose());
  }

  /** Plain data: names, ids, shapes and one transferable ArrayBuffer per parameter. */
  async toRecord(): Promise<ModuleRecord> {
    const entries = await Promise.all(
      this.namedParams().map(async ([name, p]): Promise<[string, ParamRecord]> => {
        const { shape, values } = await p.value.toData();
        return [name, { id: p.id, shape, dtype: 'float32', data: ownedFloat32(values) }];
      }),
    );
    return { params: Object.fromEntries(entries) };
  }

  /**
   * Loads a record in place (each tensor on its parameter's current device, float16 parameters kept
   * float16); ids come from the record. All or nothing: every entry (id, dtype, shape, data) is
   * checked first. Strict (the default) refuses a record whose names differ, listing the missing and
   * the unexpected ones together; `{ strict: false, report }` loads what matches and passes
   * `{ loaded, missing, unexpected }` to `report` (torch's load_state_dict result).
   */
  fromRecord(record: ModuleRecord, options: FromRecordOptions = {}): this {
    if (typeof record !== 'object' || record === null || typeof record.params !== 'object' || record.params === null) {
      throw new ArgumentError(`the record must be { params: { name: { id, shape, dtype, data } } }, got ${record === null ? 'null' : typeof record}`, { op: 'fromRecord', hint: 'records come from module.toRecord() or safetensorsToRecord()' });
    }
    const opts = checkOptions('fromRecord', options);
    checkKeys('fromRecord', opts, ['strict', 'report']);
    const strict = opts['strict'] === undefined ? true : checkBoolean('fromRecord', 'strict', opts['strict']);
    const report = options.report;
    if (report !== undefined && typeof report !== 'function') throw new ArgumentError(`report must be a function, got ${show(report)}`, { op: 'fromRecord' });
    const params = record.params;
    // Everything is checked before anything is set: a record that does not fit leaves the module as it was.
    const loads: Array<[Param<B>, ParamRecord]> = [];
    const loaded: string[] = [];
    const names = new Set<string>();
    const missing: string[] = [];
    const byId = new Map<string, [Param<B>, string]>();
    this.visit((p, name) => {
      names.add(name);
      // Own entries only: a parameter named 'constructor' must not find Object.prototype's.
      if (!Object.hasOwn(params, name)) {
        missing.push(name);
        return;
      }
      const r = checkParamRecord(name, params[name]);
      if (!sameShape(r.shape, p.shape)) {
        throw new ShapeError(`parameter '${name}' has shape [${p.shape.join(', ')}], the record [${r.shape.join(', ')}]`, { op: 'fromRecord', shapes: [p.shape, r.shape] });
      }
      // One id for two parameters would merge their optimizer state (a tied parameter, met twice, is one).
      const seen = byId.get(r.id);
      if (seen && seen[0] !== p) {
        throw new ArgumentError(`parameters '${seen[1]}' and '${name}' have the same id '${r.id}' in the record, but are different parameters of this module`, { op: 'fromRecord', hint: 'ids name one parameter each; records from toRecord() or saveModule keep them apart' });
      }
      byId.set(r.id, [p, name]);
      loads.push([p, r]);
      loaded.push(name);
    });
    const unexpected = Object.keys(params).filter((n) => !names.has(n));
    if (strict && (missing.length > 0 || unexpected.length > 0)) {
      const parts = [];
      if (missing.length > 0) parts.push(`the record has no parameter ${missing.map((n) => `'${n}'`).join(', ')}`);
      if (unexpected.length > 0) parts.push(`the record has parameters this module lacks: ${unexpected.join(', ')}`);
      throw new ArgumentError(parts.join('; '), { op: 'fromRecord', hint: 'pass { strict: false } to load the parameters that match (and { report } to see the rest)' });
    }
    for (const [p, r] of loads) {
      const v = p.value;
      // A float16 parameter stays float16 (records hold float32 values).
      p.set(fromData(v.backend, r.data, { shape: r.shape, device: v.device, dtype: v.dtype === 'float16' ? 'float16' : 'float32' }) as Tensor<B, 'float'>);
      p.id = r.id;
    }
    report?.({ loaded, missing, unexpected });
    return this;
  }

  /**
   * A structural copy whose parameters are `f(param)`; other fields are shared. `f` runs once per
   * parameter: one tied into several places is one parameter in the copy too.
   */
  protected mapParams(f: (p: Param<B>) => Param<B>): this {
    const made = new Map<Param<B>, Param<B>>();
    return this.copyWith((p) => {
      let q = made.get(p);
      if (!q) made.set(p, (q = f(p)));
      return q;
    });
  }

  private copyWith(f: (p: Param<B>) => Param<B>): this {
    const copy = Object.create(Object.getPrototypeOf(this) as object) as this;
    const map = (value: unknown): unknown => {
      if (value instanceof Param) return f(value as Param<B>);
      if (value instanceof Module) return (value as Module<B>).copyWith(f);
      if (Array.isArray(value)) return value.map(map);
      return value;
    };
    for (const [k, v] of fieldsOf(this)) Object.defineProperty(copy, k, { value: map(v), writable: true, enumerable: true, configurable: true });
    return copy;
  }
}

/** A module with one float input and output, as Sequential chains them. */
export interface Layer<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'>;
}
