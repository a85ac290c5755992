/**
 * The user-facing tensor. Its type carries the backend `B` (so `backward()` exists only on
 * autodiff backends) and its kind `K` (float, int, bool). Every method checks shapes and dtypes
 * at once (throwing typed errors), returns a tensor whose shape is known, and leaves the
 * computing to the scheduler; `await t.toData()` is the sync point.
 */
import { ArgumentError, DTypeError, DeviceError, DisposedError, ShapeError } from '../errors.js';
import type { Gradients } from '../autodiff/gradients.js';
import { isAutodiff, type AutodiffBackend, type BackwardOptions } from '../autodiff/types.js';
import { sameBackend, type Backend, type Handle } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { buildCreation, buildOp, buildTransfer, type Built } from '../ir/builder.js';
import { halvesToFloat32 } from '../ir/half.js';
import { coerce, isFloat, kindOf, type DType, type DTypeOf, type FloatDType, type Kind, type KindOf, type TypedArray } from '../ir/dtype.js';
import { BINARY, isBinaryOp, isUnaryOp, type BinaryOp, type UnaryOp } from '../ir/elementwise.js';
import type { KindsOf } from '../ir/kinds.js';
import { numel, type OpAttrs, type OpName, type ReduceOp } from '../ir/ops.js';
import { broadcastShapes, checkSize, checkTargetShape, normDim, normDims, normSlices, resolveReshape, sameShape, type SliceSpec } from '../ir/shape.js';
import { arithScalar, checkArray, checkBoolean, checkChoice, checkDevice, checkDType, checkInt32Value, checkInteger, checkIntegers, checkNumber, checkOptions, field, MAX_RANK, show } from '../ir/validate.js';
import { track } from '../memory/tidy.js';
import { noGrad } from '../autodiff/grad-mode.js';
import { formatSummary, summarize, type Summary } from './format.js';
import { oneHot, pad, type PadMode } from './layout.js';
import { checkOrder, vectorNorm } from './norms.js';
import { einsum } from './einsum.js';
import { rollArgs, rollFlat, sortWithIndices, topk, topkDim } from './ordering.js';
import { anyAll, logsumexp, varianceArgs, withIndices, type Dims, type VarOptions } from './reductions.js';
import { aminmax, countNonzero, cumExtreme, kthvalue, logcumsumexp, median, medianAll, mode, nanmean, nanmedian, nansum } from './more-reductions.js';
import { diag, diagEmbed, diagonal, outer, repeatInterleave, tile, unbind } from './shape-ops.js';
import { indexAttrs } from './index-scope.js';
import { indexAdd, scatter, scatterReduce, take, takeAlongDim, type ScatterReduce } from './scatter.js';
import { addbmm, addmm, addmv, addr, allclose, logaddexp2, scaleFloat, baddbmm, bucketize, cdist, cross, heaviside, histc, isclose, isin, kron, movedim, nanToNum, rot90, searchsorted, signbit, sinc, trace, vander, type AddmmOptions, type CloseOptions, type SearchOptions } from './misc-ops.js';
import { maskedSelect, nonzero, repeatInterleaveBy, unique, type UniqueOptions, type UniqueResult } from './data-dependent.js';

export interface TensorData<K extends Kind = Kind> {
  readonly shape: number[];
  readonly dtype: K extends 'float' ? FloatDType : K extends 'int' ? 'int32' : K extends 'bool' ? 'bool' : DType;
  readonly values: K extends 'float' ? Float32Array : K extends 'int' ? Int32Array : K extends 'bool' ? Uint8Array : TypedArray;
}

export type NestedArray = number | boolean | readonly NestedArray[];

interface Held {
  backend: Backend;
  handle: Handle;
}

const finalizer = new FinalizationRegistry<Held>(({ backend, handle }) => {
  // A throw here would surface from the garbage collector as an uncaught error and end the process.
  try {
    backend.release(handle);
  } catch {
    /* the storage is already gone */
  }
});

/** Node's hook for `console.log` / `util.inspect` (a registered symbol: no import of node:util). */
const inspectSymbol: unique symbol = Symbol.for('nodejs.util.inspect.custom');

/** A tensor or a plain number (scalar operand). */
export type Operand<B extends Backend, K extends Kind> = Tensor<B, K> | number;

/** A tensor of a kind `op` accepts (from the op tables in src/ir/kinds.ts): the `this` type of each op method. */
export type Accepting<B extends Backend, Op extends string> = Tensor<B, KindsOf<Op>>;

/** A tensor argument (untyped callers may pass anything). */
export function checkTensor<T>(op: string, name: string, v: T): T {
  if (!(v instanceof Tensor)) throw new ArgumentError(`${name} must be a tensor, got ${show(v)}`, { op });
  return v;
}

/** A scalar argument: a number (NaN and the infinities included). */
function checkScalar(op: string, v: unknown): number {
  return checkNumber(op, 'the scalar operand', v);
}

export class Tensor<B extends Backend = Backend, K extends Kind = Kind> {
  readonly backend: B;
  readonly handle: Handle;
  private disposed = false;
  /** What the last read fetched, summarised for printing (values never change once computed). */
  private shown: Summary | undefined;

  /** Not for users: tensors come from the creation functions (`fromData`, `zeros`, ...) and ops. */
  constructor(backend: B, handle: Handle) {
    this.backend = backend;
    this.handle = handle;
    finalizer.register(this, { backend, handle }, this);
    track(this, backend.runtime);
  }

  get shape(): number[] {
    return [...this.handle.shape];
  }
  /** The dtype, typed by the kind: float32 or float16 for float tensors. */
  get dtype(): DTypeOf<K> {
    // The handle's dtype is of kind K by construction (as `kind` below).
    return this.handle.dtype as DTypeOf<K>;
  }
  get kind(): K {
    return kindOf(this.handle.dtype) as K;
  }
  get device(): Device {
    return this.handle.device;
  }
  get rank(): number {
    return this.handle.shape.length;
  }
  get size(): number {
    return numel(this.handle.shape);
  }
  get id(): number {
    return this.handle.id;
  }
  get isDisposed(): boolean {
    return this.disposed;
  }

  /** Frees the tensor now. Ops already queued that read it still get its values. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    finalizer.unregister(this);
    this.backend.release(this.handle);
  }

  /** @internal */
  live(op: string): Handle {
    if (this.disposed) throw new DisposedError(`tensor #${this.handle.id} [${this.handle.shape.join(', ')}] was disposed`, { op, hint: 'do not use a tensor after dispose() or after its tidy() scope ended; keep() it to let it outlive a scope' });
    return this.handle;
  }

  // ---- plumbing -------------------------------------------------------------------------

  /** @internal Builds one op's record, submits it to the backend, and wraps its outputs. */
  static run<B extends Backend, N extends OpName>(backend: B, op: N, inputs: ReadonlyArray<Tensor<B, Kind>>, attrs: OpAttrs[N]): Array<Tensor<B, Kind>> {
    const handles: Handle[] = new Array<Handle>(inputs.length);
    for (let i = 0; i < inputs.length; i++) {
      const t = inputs[i]!;
      handles[i] = t.live(op);
      if (t.backend !== backend && !sameBackend(t.backend, backend)) {
        // A DeviceError as for inputs on two devices (the README's table; torch: "expected all tensors on the same device").
        throw new DeviceError(`inputs come from different backends (${backend.name} and ${t.backend.name})`, { op, devices: [handles[0]!.device.key, handles[i]!.device.key], hint: 'build every input through one backend (a Router spans several devices), or move the tensor with toDevice on a Router' });
      }
    }
    const placed = backend.place?.(op, handles, attrs);
    if (placed !== undefined) return Tensor.runOn(backend, op, handles, attrs, placed);
    const built = buildOp(backend.runtime.ids, op, handles, attrs);
    backend.checkDevice(op, built.outputs[0]?.device ?? handles[0]!.device);
    return Tensor.submit(backend, built);
  }

  /**
   * An op the backend placed on `device`: inputs that live elsewhere move there first as
   * ordinary transfer records (an autodiff tape records them, so gradients flow back), unless the
   * backend still holds a copy moved earlier. Every record is built before any is submitted, so
   * a bad call throws with nothing queued.
   */
  private static runOn<B extends Backend, N extends OpName>(backend: B, op: N, handles: readonly Handle[], attrs: OpAttrs[N], device: Device): Array<Tensor<B, Kind>> {
    const ids = backend.runtime.ids;
    const transfers: Array<Built<'transfer'>> = [];
    const moved = new Map<number, Handle>();
    const ins = handles.map((h) => {
      if (h.device.key === device.key) return h;
      let m = moved.get(h.id) ?? backend.replica?.(h, device);
      if (!m) {
        const t = buildTransfer(ids, h, device);
        transfers.push(t);
        m = t.outputs[0]!;
      }
      moved.set(h.id, m);
      return m;
    });
    const built = buildOp(ids, op, ins, attrs, device);
    backend.checkDevice(op, device);
    const temps = transfers.map((t) => Tensor.submit(backend, t)[0]!);
    try {
      return Tensor.submit(backend, built);
    } finally {
      for (const t of temps) t.dispose();
    }
  }

  /** @internal Hands a built record to the backend and wraps its outputs. */
  static submit<B extends Backend, N extends OpName>(backend: B, built: Built<N>): Array<Tensor<B, Kind>> {
    backend.submit(built.record);
    return built.outputs.map((h) => new Tensor<B, Kind>(backend, h));
  }

  private un<K2 extends Kind = K>(op: OpName, attrs: OpAttrs[OpName] = {} as never): Tensor<B, K2> {
    return Tensor.run(this.backend, op, [this], attrs)[0] as Tensor<B, K2>;
  }

  private bin<K2 extends Kind = K>(op: BinaryOp, other: Operand<B, Kind>): Tensor<B, K2> {
    if (!(other instanceof Tensor)) checkNumber(op, 'the other operand (a tensor or a number)', other);
    if (typeof other === 'number') {
      const d = this.dtype;
      const predicate = BINARY[op].out === 'bool';
      if (d === 'int32' && predicate) return this.intComparison<K2>(op, other);
      // A scalar takes the tensor's dtype, as PyTorch's wrapped numbers do (0.1 compares as float32 0.1).
      return this.un<K2>(`${op}Scalar`, { scalar: arithScalar(op, d, other) } as never);
    }
    return Tensor.run(this.backend, op, [this, other], {} as never)[0] as Tensor<B, K2>;
  }

  /** int32 vs any real scalar, exactly: rewritten to an integer comparison, or a constant. */
  private intComparison<K2 extends Kind>(op: BinaryOp, s: number): Tensor<B, K2> {
    const MAX = 2 ** 31 - 1;
    const MIN = -(2 ** 31);
    let bound: number | boolean;
    switch (op) {
      case 'lower': // x < s  <=>  x <= ceil(s) - 1
        bound = Number.isNaN(s) ? false : s > MAX ? true : s <= MIN ? false : Math.ceil(s);
        break;
      case 'greaterEqual':
        bound = Number.isNaN(s) ? false : s > MAX ? false : s <= MIN ? true : Math.ceil(s);
        break;
      case 'lowerEqual': // x <= s  <=>  x <= floor(s)
        bound = Number.isNaN(s) ? false : s >= MAX ? true : s < MIN ? false : Math.floor(s);
        break;
      case 'greater':
        bound = Number.isNaN(s) ? false : s >= MAX ? false : s < MIN ? true : Math.floor(s);
        break;
      case 'equal':
        bound = Number.isInteger(s) && s >= MIN && s <= MAX ? s : false;
        break;
      case 'notEqual':
        bound = Number.isInteger(s) && s >= MIN && s <= MAX ? s : true;
        break;
      default:
        bound = s | 0;
    }
    if (typeof bound === 'boolean') {
      const h = this.live(op);
      return Tensor.create(this.backend, 'full', { value: bound ? 1 : 0 }, h.shape, 'bool', h.device) as Tensor<B, K2>;
    }
    return this.un<K2>(`${op}Scalar`, { scalar: bound } as never);
  }

  // ---- reads ----------------------------------------------------------------------------

  /** Waits for the tensor and returns its values (contiguous, row-major). */
  async toData(): Promise<TensorData<K>> {
    const h = this.live('toData');
    const stored = await this.backend.read(h);
    // float16 is stored as bit patterns; its values come out as float32 (exactly).
    const values = h.dtype === 'float16' && stored instanceof Uint16Array ? halvesToFloat32(stored) : stored;
    this.shown = summarize(h.shape, values);
    return { shape: [...h.shape], dtype: h.dtype, values } as unknown as TensorData<K>;
  }

  /** Nested JS arrays (booleans for bool tensors). */
  async toArray(): Promise<NestedArray> {
    const { shape, values } = await this.toData();
    const isBool = this.dtype === 'bool';
    const build = (dim: number, offset: number): NestedArray => {
      if (dim === shape.length) return isBool ? values[offset] !== 0 : values[offset]!;
      const stride = shape.slice(dim + 1).reduce((a, b) => a * b, 1);
      return Array.from({ length: shape[dim]! }, (_, i) => build(dim + 1, offset + i * stride));
    };
    return build(0, 0);
  }

  /** The single value of a one-element tensor. */
  async item(): Promise<number> {
    if (this.size !== 1) throw new ShapeError('item() needs a tensor with exactly one element', { op: 'item', shapes: [this.shape] });
    const { values } = await this.toData();
    return values[0]!;
  }

  /** Prints like PyTorch. */
  async format(): Promise<string> {
    await this.toData();
    return formatSummary(this.shown!, this.handle.shape, this.dtype, this.device.key);
  }

  /**
   * What `console.log(t)` prints in Node: shape, dtype and device, and the values (as `format()`)
   * once a read has fetched them; reading is asynchronous, so printing never waits.
   */
  [inspectSymbol](): string {
    const h = this.handle;
    const head = `Tensor(shape=[${h.shape.join(', ')}], dtype=${h.dtype}, device=${h.device.key}${!this.disposed && this.requiresGrad ? ', requiresGrad' : ''})`;
    if (this.disposed) return `${head} (disposed)`;
    if (!this.shown) return `${head} (values not read yet: await t.format() or t.toData())`;
    return `${head}\n${formatSummary(this.shown, h.shape, h.dtype, h.device.key)}`;
  }

  // ---- elementwise binary (broadcasting) --------------------------------------------------

  add(this: Accepting<B, 'add'>, other: Operand<B, K>): Tensor<B, K> {
    return this.bin('add', other);
  }
  sub(this: Accepting<B, 'sub'>, other: Operand<B, K>): Tensor<B, K> {
    return this.bin('sub', other);
  }
  mul(this: Accepting<B, 'mul'>, other: Operand<B, K>): Tensor<B, K> {
    return this.bin('mul', other);
  }
  /**
   * True division for floats; floor division for int32 (x / 0 gives 0). `roundingMode` 'trunc' or
   * 'floor' rounds the quotient, as torch.div(rounding_mode=...), for floats and int32.
   */
  div(this: Accepting<B, 'div'>, other: Operand<B, K>, roundingMode?: 'trunc' | 'floor' | null): Tensor<B, K> {
    if (roundingMode === undefined || roundingMode === null) return this.bin('div', other);
    const mode = checkChoice('div', 'roundingMode', roundingMode, ['trunc', 'floor'] as const);
    this.checkOperands('div', [other]);
    return this.bin(mode === 'trunc' ? 'divTrunc' : 'divFloor', other);
  }
  pow(this: Accepting<B, 'pow'>, other: Operand<B, K>): Tensor<B, K> {
    return this.bin('pow', other);
  }
  /** Python-style modulo: the result has the sign of the divisor (torch.remainder). */
  remainder(this: Accepting<B, 'remainder'>, other: Operand<B, K>): Tensor<B, K> {
    return this.bin('remainder', other);
  }
  /** Elementwise max; NaN wins. */
  maximum(this: Accepting<B, 'maximum'>, other: Operand<B, K>): Tensor<B, K> {
    return this.bin('maximum', other);
  }
  /** Elementwise min; NaN wins. */
  minimum(this: Accepting<B, 'minimum'>, other: Operand<B, K>): Tensor<B, K> {
    return this.bin('minimum', other);
  }

  // ---- comparisons (bool results; NaN compares unequal to everything) ---------------------

  equal(this: Accepting<B, 'equal'>, other: Operand<B, K>): Tensor<B, 'bool'> {
    return this.bin('equal', other);
  }
  notEqual(this: Accepting<B, 'notEqual'>, other: Operand<B, K>): Tensor<B, 'bool'> {
    return this.bin('notEqual', other);
  }
  greater(this: Accepting<B, 'greater'>, other: Operand<B, K>): Tensor<B, 'bool'> {
    return this.bin('greater', other);
  }
  greaterEqual(this: Accepting<B, 'greaterEqual'>, other: Operand<B, K>): Tensor<B, 'bool'> {
    return this.bin('greaterEqual', other);
  }
  lower(this: Accepting<B, 'lower'>, other: Operand<B, K>): Tensor<B, 'bool'> {
    return this.bin('lower', other);
  }
  lowerEqual(this: Accepting<B, 'lowerEqual'>, other: Operand<B, K>): Tensor<B, 'bool'> {
    return this.bin('lowerEqual', other);
  }
  logicalAnd(this: Accepting<B, 'logicalAnd'>, other: Tensor<B, 'bool'>): Tensor<B, 'bool'> {
    return this.bin('logicalAnd', other);
  }
  logicalOr(this: Accepting<B, 'logicalOr'>, other: Tensor<B, 'bool'>): Tensor<B, 'bool'> {
    return this.bin('logicalOr', other);
  }
  logicalNot(this: Accepting<B, 'logicalNot'>): Tensor<B, 'bool'> {
    return this.un('logicalNot');
  }

  /** `cond ? this : other`, broadcasting all three (torch.where(cond, this, other)). */
  where(cond: Tensor<B, 'bool'>, other: Operand<B, K>): Tensor<B, K> {
    checkTensor('where', 'the condition', cond);
    if (typeof other !== 'number') return Tensor.run(this.backend, 'where', [cond, this, checkTensor('where', 'other', other)], {})[0] as Tensor<B, K>;
    // torch.where promotes an int tensor with a fractional scalar to float; refused as int32 + 1.5 is.
    if (this.dtype === 'int32' && Number.isFinite(other) && !Number.isInteger(other)) throw new DTypeError(`a non-integer scalar ${other} with an int32 tensor`, { op: 'where', dtypes: ['int32'], hint: 'cast the tensor with .cast("float32") first' });
    const o = this.scalarLike('where', checkScalar('where', other));
    try {
      return Tensor.run(this.backend, 'where', [cond, this, o], {})[0] as Tensor<B, K>;
    } finally {
      o.dispose();
    }
  }

  /**
   * Sets the elements where `mask` is true to `value` (mask broadcasts to this shape; NaN in this
   * tensor is replaced too). One record: the value travels in its attrs, coerced as `full` does.
   */
  maskFill(mask: Tensor<B, 'bool'>, value: number): Tensor<B, K> {
    checkTensor('maskFill', 'the mask', mask);
    const v = checkScalar('maskFill', value);
    const h = this.live('maskFill');
    if (h.dtype === 'int32') checkInt32Value('maskFill', v);
    // Mask dtype and broadcasting are checked by the op's shape rule (src/ir/infer.ts).
    return Tensor.run(this.backend, 'maskFill', [mask, this], { value: coerce(h.dtype, v) })[0] as Tensor<B, K>;
  }

  /** A rank-0 tensor of this dtype on this device. */
  private scalarLike(op: string, value: number): Tensor<B, K> {
    const h = this.live(op);
    if (h.dtype === 'int32') checkInt32Value(op, value);
    return Tensor.create(this.backend, 'full', { value: coerce(h.dtype, value) }, [], h.dtype, h.device) as Tensor<B, K>;
  }

  /** @internal Creation through a backend; host data travels as a blob of the backend's runtime. */
  static create<B extends Backend, N extends OpName>(backend: B, op: N, attrs: OpAttrs[N], shape: readonly number[], dtype: DType, device: Device): Tensor<B, Kind> {
    backend.checkDevice(op, device);
    return Tensor.submit(backend, buildCreation(backend.runtime.ids, op, attrs, shape, dtype, device))[0]!;
  }

  /** @internal A tensor from host values (the values are handed over, not copied). */
  static upload<B extends Backend>(backend: B, values: TypedArray, shape: readonly number[], dtype: DType, device: Device): Tensor<B, Kind> {
    backend.checkDevice('fromData', device);
    const blob = backend.runtime.blobs.put(values);
    try {
      return Tensor.submit(backend, buildCreation(backend.runtime.ids, 'fromData', { blob }, shape, dtype, device))[0]!;
    } catch (e) {
      backend.runtime.blobs.drop(blob);
      throw e;
    }
  }

  // ---- unary ----------------------------------------------------------------------------

  neg(this: Accepting<B, 'neg'>): Tensor<B, K> {
    return this.un('neg');
  }
  abs(this: Accepting<B, 'abs'>): Tensor<B, K> {
    return this.un('abs');
  }
  exp(this: Accepting<B, 'exp'>): Tensor<B, 'float'> {
    return this.un('exp');
  }
  log(this: Accepting<B, 'log'>): Tensor<B, 'float'> {
    return this.un('log');
  }
  log1p(this: Accepting<B, 'log1p'>): Tensor<B, 'float'> {
    return this.un('log1p');
  }
  sqrt(this: Accepting<B, 'sqrt'>): Tensor<B, 'float'> {
    return this.un('sqrt');
  }
  rsqrt(this: Accepting<B, 'rsqrt'>): Tensor<B, 'float'> {
    return this.un('rsqrt');
  }
  sin(this: Accepting<B, 'sin'>): Tensor<B, 'float'> {
    return this.un('sin');
  }
  cos(this: Accepting<B, 'cos'>): Tensor<B, 'float'> {
    return this.un('cos');
  }
  tanh(this: Accepting<B, 'tanh'>): Tensor<B, 'float'> {
    return this.un('tanh');
  }
  erf(this: Accepting<B, 'erf'>): Tensor<B, 'float'> {
    return this.un('erf');
  }
  sigmoid(this: Accepting<B, 'sigmoid'>): Tensor<B, 'float'> {
    return this.un('sigmoid');
  }
  relu(this: Accepting<B, 'relu'>): Tensor<B, K> {
    return this.un('relu');
  }
  /** The exact (erf) GELU. */
  gelu(this: Accepting<B, 'gelu'>): Tensor<B, 'float'> {
    return this.un('gelu');
  }
  recip(this: Accepting<B, 'recip'>): Tensor<B, 'float'> {
    return this.un('recip');
  }
  square(this: Accepting<B, 'square'>): Tensor<B, K> {
    return this.un('square');
  }
  /** -1, 0 or 1 (NaN stays NaN). */
  sign(this: Accepting<B, 'sign'>): Tensor<B, K> {
    return this.un('sign');
  }
  isNan(this: Accepting<B, 'isNan'>): Tensor<B, 'bool'> {
    return this.un('isNan');
  }
  isInf(this: Accepting<B, 'isInf'>): Tensor<B, 'bool'> {
    return this.un('isInf');
  }
  /**
   * Clamps into [min, max]: min(max(x, min), max), so with min > max every element is max (torch).
   * Either bound may be omitted, or be a tensor of this dtype (broadcasting, as torch.clamp with
   * tensors). NaN stays NaN.
   */
  clamp(this: Accepting<B, 'clamp'>, min?: Operand<B, K> | null, max?: Operand<B, K> | null): Tensor<B, K> {
    if (min instanceof Tensor || max instanceof Tensor) return this.clampTensors(min ?? null, max ?? null);
    return this.clampTo(min, max);
  }
  /** torch.clamp_min: a number or a tensor bound. */
  clampMin(this: Accepting<B, 'clamp'>, min: Operand<B, K>): Tensor<B, K> {
    return min instanceof Tensor ? this.clampTensors(min, null) : this.clampTo(min, null);
  }
  /** torch.clamp_max: a number or a tensor bound. */
  clampMax(this: Accepting<B, 'clamp'>, max: Operand<B, K>): Tensor<B, K> {
    return max instanceof Tensor ? this.clampTensors(null, max) : this.clampTo(null, max);
  }
  private clampTo<K2 extends Kind = K>(min: unknown, max: unknown): Tensor<B, K2> {
    const bound = (name: string, v: unknown, open: number): number => {
      if (v === null || v === undefined) return open;
      if (typeof v !== 'number' || Number.isNaN(v)) throw new ArgumentError(`${name} must be a number or null, got ${show(v)}`, { op: 'clamp' });
      return v;
    };
    const lo = bound('min', min, -Infinity);
    const hi = bound('max', max, Infinity);
    if (this.dtype === 'int32') return this.un('clamp', { min: Math.max(Math.ceil(lo), -(2 ** 31)), max: Math.min(Math.floor(hi), 2 ** 31 - 1) });
    return this.un('clamp', { min: lo, max: hi });
  }
  /** Applies any unary op of the elementwise table by name. */
  unary(op: UnaryOp): Tensor<B, Kind> {
    if (typeof op !== 'string' || !isUnaryOp(op)) throw new ArgumentError(`unknown unary op ${show(op)}`, { op: 'unary', hint: 'UNARY_OPS lists them' });
    return this.un(op);
  }
  /** Applies any binary op of the elementwise table by name. */
  binary(op: BinaryOp, other: Operand<B, Kind>): Tensor<B, Kind> {
    if (typeof op !== 'string' || !isBinaryOp(op)) throw new ArgumentError(`unknown binary op ${show(op)}`, { op: 'binary', hint: 'BINARY_OPS lists them' });
    return this.bin(op, other);
  }

  // ---- rounding, trigonometry, activations (torch's edge semantics) ------------------------

  /** Rounds down; ints are returned unchanged. */
  floor(): Tensor<B, K> {
    return this.un('floor');
  }
  ceil(): Tensor<B, K> {
    return this.un('ceil');
  }
  /** Rounds half to even (torch.round); with `decimals`, round(x * 10^d) / 10^d as torch does. */
  round(decimals = 0): Tensor<B, K> {
    checkInteger('round', 'decimals', decimals);
    if (decimals === 0 || !isFloat(this.dtype)) return this.un('round');
    const f = 10 ** Math.abs(decimals);
    const scaled = decimals > 0 ? this.un<K>('mulScalar', { scalar: f }) : this.un<K>('divScalar', { scalar: f });
    const r = scaled.un<K>('round');
    scaled.dispose();
    const out = decimals > 0 ? r.un<K>('divScalar', { scalar: f }) : r.un<K>('mulScalar', { scalar: f });
    r.dispose();
    return out;
  }
  /** Rounds toward zero. */
  trunc(): Tensor<B, K> {
    return this.un('trunc');
  }
  /** x - trunc(x) (the sign of x; frac(inf) is NaN). */
  frac(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('frac');
  }
  tan(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('tan');
  }
  asin(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('asin');
  }
  acos(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('acos');
  }
  atan(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('atan');
  }
  sinh(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('sinh');
  }
  cosh(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('cosh');
  }
  asinh(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('asinh');
  }
  acosh(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('acosh');
  }
  /** 2^x. */
  exp2(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('exp2');
  }
  /** exp(x) - 1, accurate near 0. */
  expm1(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('expm1');
  }
  log2(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('log2');
  }
  log10(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('log10');
  }
  /** x * sigmoid(x) (swish). */
  silu(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('silu');
  }
  /** log(1 + exp(beta x)) / beta, and x itself where beta x > threshold (torch.nn.functional.softplus). */
  softplus(this: Tensor<B, 'float'>, beta = 1, threshold = 20): Tensor<B, 'float'> {
    checkNumber('softplus', 'beta', beta, true);
    checkNumber('softplus', 'threshold', threshold);
    if (beta === 0) throw new ArgumentError('beta must be a finite non-zero number, got 0', { op: 'softplus' });
    if (Number.isNaN(threshold)) throw new ArgumentError('threshold must be a number, got NaN', { op: 'softplus' });
    return this.un('softplus', { beta, threshold });
  }
  /** x for x > 0, else x * negativeSlope. */
  leakyRelu(this: Tensor<B, 'float'>, negativeSlope = 0.01): Tensor<B, 'float'> {
    checkNumber('leakyRelu', 'negativeSlope', negativeSlope, true);
    return this.un('leakyRelu', { slope: negativeSlope });
  }
  /** x for x > 0, else alpha * (exp(x) - 1). */
  elu(this: Tensor<B, 'float'>, alpha = 1): Tensor<B, 'float'> {
    checkNumber('elu', 'alpha', alpha, true);
    return this.un('elu', { alpha });
  }
  /** atan2(this, other): the angle of the point (other, this), C99 signs and infinities. */
  atan2(this: Tensor<B, 'float'>, other: Operand<B, 'float'>): Tensor<B, 'float'> {
    return this.bin('atan2', other);
  }
  /** sqrt(this^2 + other^2) without overflow; an infinity wins over NaN. */
  hypot(this: Tensor<B, 'float'>, other: Operand<B, 'float'>): Tensor<B, 'float'> {
    return this.bin('hypot', other);
  }
  /** |this| with the sign of other (-0 counts as negative). */
  copysign(this: Tensor<B, 'float'>, other: Operand<B, 'float'>): Tensor<B, 'float'> {
    return this.bin('copysign', other);
  }
  /** log(exp(this) + exp(other)), stable for large magnitudes. */
  logaddexp(this: Tensor<B, 'float'>, other: Operand<B, 'float'>): Tensor<B, 'float'> {
    return this.bin('logaddexp', other);
  }
  /** this * log(other), with 0 where this is 0 (unless other is NaN). */
  xlogy(this: Tensor<B, 'float'>, other: Operand<B, 'float'>): Tensor<B, 'float'> {
    return this.bin('xlogy', other);
  }

  // ---- more elementwise math: lerp, addcmul, addcdiv, clamp with tensor bounds, fmax, fmin, fmod, special functions ----

  /**
   * Checks `operands` (tensors or numbers) against this tensor for `op`: tensors of this dtype whose
   * shapes broadcast together. Composite ops check first, so that an error names the op called,
   * not one of its steps.
   */
  private checkOperands(op: string, operands: readonly unknown[]): void {
    const shapes: number[][] = [[...this.live(op).shape]];
    for (const o of operands) {
      if (o instanceof Tensor) {
        if (o.dtype !== this.dtype) throw new DTypeError(`operands of dtypes ${this.dtype} and ${o.dtype}`, { op, dtypes: [this.dtype, o.dtype], hint: 'cast one with .cast() first' });
        shapes.push([...o.live(op).shape]);
      } else checkNumber(op, 'each operand (a tensor or a number)', o);
    }
    broadcastShapes(op, ...shapes);
  }
  /** Float tensors only (torch refuses integer addcdiv; lerp, logit and the special functions are float). */
  private checkFloat(op: string): void {
    if (!isFloat(this.live(op).dtype)) throw new DTypeError(`${op} needs a float tensor, got ${this.dtype}`, { op, dtypes: [this.dtype], hint: 'cast with .cast("float32") first' });
  }
  /** Runs `steps` with `keep`, which marks a temporary to dispose afterwards (also when a step throws). */
  private static temps<T>(steps: (keep: <U extends Tensor<Backend, Kind>>(t: U) => U) => T): T {
    const made: Array<Tensor<Backend, Kind>> = [];
    try {
      return steps((t) => {
        made.push(t);
        return t;
      });
    } finally {
      for (const t of made) t.dispose();
    }
  }

  /**
   * torch.lerp: this + weight (end - this), computed as torch does for accuracy: from this where
   * |weight| < 0.5, else end - (end - this)(1 - weight). `weight` is a number or a float tensor;
   * all three broadcast.
   */
  lerp(this: Tensor<B, 'float'>, end: Tensor<B, 'float'>, weight: Operand<B, 'float'>): Tensor<B, 'float'> {
    checkTensor('lerp', 'end', end);
    this.checkFloat('lerp');
    this.checkOperands('lerp', [end, weight]);
    return Tensor.temps((keep) => {
      const diff = keep(end.sub(this));
      if (typeof weight === 'number') {
        // The weight as float32, as torch's kernel reads it.
        const w = Math.fround(weight);
        if (Math.abs(w) < 0.5) return this.add(keep(diff.mul(w)));
        return end.sub(keep(diff.mul(Math.fround(1 - w))));
      }
      const small = keep(keep(weight.abs()).lower(0.5));
      // Where the other branch is taken, each reads a harmless constant weight (0 low, 1 high): its
      // masked zero gradient times an infinite or NaN weight would be NaN, and its value (0 * an
      // infinite difference: NaN) is dropped by the where.
      const low = keep(this.add(keep(diff.mul(keep(weight.where(small, 0))))));
      const high = keep(end.sub(keep(diff.mul(keep(keep(keep(weight.where(keep(small.logicalNot()), 1)).neg()).add(1))))));
      return low.where(small, high);
    });
  }
  /** torch.addcmul: this + value * t1 * t2 (broadcasting; an int32 tensor takes an integer value). */
  addcmul(this: Accepting<B, 'mul'>, t1: Tensor<B, K>, t2: Tensor<B, K>, value = 1): Tensor<B, K> {
    checkTensor('addcmul', 't1', t1);
    checkTensor('addcmul', 't2', t2);
    checkNumber('addcmul', 'value', value);
    this.checkOperands('addcmul', [t1, t2]);
    arithScalar('addcmul', this.dtype, value);
    return Tensor.temps((keep) => this.bin('add', keep((value === 1 ? t1 : keep(t1.bin<K>('mul', value))).bin<K>('mul', t2))));
  }
  /** torch.addcdiv: this + value * t1 / t2 (floats only, as torch; broadcasting). */
  addcdiv(this: Tensor<B, 'float'>, t1: Tensor<B, 'float'>, t2: Tensor<B, 'float'>, value = 1): Tensor<B, 'float'> {
    checkTensor('addcdiv', 't1', t1);
    checkTensor('addcdiv', 't2', t2);
    checkNumber('addcdiv', 'value', value);
    this.checkFloat('addcdiv');
    this.checkOperands('addcdiv', [t1, t2]);
    return Tensor.temps((keep) => this.add(keep((value === 1 ? t1 : keep(t1.mul(value))).div(t2))));
  }
  /**
   * clamp with a tensor bound (a number for the other is allowed): min(max(x, min), max), a NaN in
   * any operand giving NaN. Under autodiff the gradients are torch's: x's where min <= x <= max,
   * min's where x < min < max, max's where x > max or max < min.
   */
  private clampTensors<K2 extends Kind = K>(min: Operand<B, Kind> | null, max: Operand<B, Kind> | null): Tensor<B, K2> {
    if (this.live('clamp').dtype === 'bool') throw new DTypeError('clamp needs a float or int32 tensor, got bool', { op: 'clamp', dtypes: ['bool'] });
    this.checkOperands('clamp', [min, max].filter((b) => b !== null));
    return Tensor.temps((keep) => {
      const lo = typeof min === 'number' ? keep(this.scalarLike('clamp', min)) : min;
      const hi = typeof max === 'number' ? keep(this.scalarLike('clamp', max)) : max;
      const v = lo === null ? this.bin<K2>('minimum', hi!) : hi === null ? this.bin<K2>('maximum', lo) : keep(this.bin('maximum', lo)).bin<K2>('minimum', hi);
      if (![this, lo, hi].some((t) => t?.requiresGrad)) return v;
      keep(v);
      // Each operand where its mask holds (the masks are disjoint), the detached result elsewhere.
      let out: Tensor<B, Kind> = keep(v.detach());
      let inside: Tensor<B, 'bool'> | undefined;
      if (hi !== null) {
        let p = keep(this.bin<'bool'>('greater', hi));
        if (lo !== null) p = keep(p.bin<'bool'>('logicalOr', keep(hi.bin<'bool'>('lower', lo))));
        // torch's max mask holds also where the result is NaN (x or min NaN): there max + NaN keeps
        // the value NaN while max still takes the gradient.
        const nan = keep(keep(this.scalarLike('clamp', NaN)).where(keep(v.un<'bool'>('isNan')), 0));
        out = keep(keep(hi.bin('add', nan)).where(p, out));
        inside = keep(this.bin<'bool'>('lowerEqual', hi));
      }
      if (lo !== null) {
        let p = keep(this.bin<'bool'>('lower', lo));
        if (hi !== null) p = keep(p.bin<'bool'>('logicalAnd', keep(lo.bin<'bool'>('lower', hi))));
        out = keep(lo.where(p, out));
        const ge = keep(this.bin<'bool'>('greaterEqual', lo));
        inside = inside ? keep(inside.bin<'bool'>('logicalAnd', ge)) : ge;
      }
      return Tensor.run(this.backend, 'where', [inside!, this, out], {})[0] as Tensor<B, K2>;
    });
  }
  /** torch.special.xlog1py: this * log1p(other), with 0 where this is 0 (unless other is NaN). */
  xlog1py(this: Tensor<B, 'float'>, other: Operand<B, 'float'>): Tensor<B, 'float'> {
    return this.bin('xlog1py', other);
  }
  /** torch.fmax: elementwise max where a NaN loses to a number (NaN only where both are). */
  fmax(this: Accepting<B, 'fmax'>, other: Operand<B, K>): Tensor<B, K> {
    return this.bin('fmax', other);
  }
  /** torch.fmin: elementwise min where a NaN loses to a number. */
  fmin(this: Accepting<B, 'fmin'>, other: Operand<B, K>): Tensor<B, K> {
    return this.bin('fmin', other);
  }
  /** torch.fmod (C fmod): the remainder of truncated division, with the sign of this (the dividend). int32 x % 0 is 0. */
  fmod(this: Accepting<B, 'fmod'>, other: Operand<B, K>): Tensor<B, K> {
    return this.bin('fmod', other);
  }
  /** atanh; ±inf at ±1, NaN beyond. */
  atanh(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('atanh');
  }
  /**
   * torch.logit: log(x / (1 - x)), NaN outside [0, 1]. With `eps`, x below eps is read as eps and
   * x above 1 - eps as 1 - eps (the gradient is 0 there); a negative eps changes nothing, as torch.
   */
  logit(this: Tensor<B, 'float'>, eps?: number | null): Tensor<B, 'float'> {
    this.checkFloat('logit');
    if (eps === undefined || eps === null) return this.un('logit');
    checkNumber('logit', 'eps', eps, true);
    if (eps < 0) return this.un('logit');
    const lo = Math.fround(eps);
    const hi = Math.fround(1 - lo);
    // torch's kernel: x < lo ? lo : x > hi ? hi : x (NaN passes, and its gradient is NaN, as torch's).
    return Tensor.temps((keep) => keep(keep(this.maskFill(keep(this.greater(hi)), hi)).maskFill(keep(this.lower(lo)), lo)).un<'float'>('logit'));
  }
  /** The inverse error function; ±inf at ±1, NaN beyond. */
  erfinv(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('erfinv');
  }
  /** log|gamma(x)|; +inf at 0, the negative integers and ±inf. */
  lgamma(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('lgamma');
  }
  /** digamma (psi, lgamma's derivative): NaN at the negative integers, -inf at 0, +inf at -0. */
  digamma(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('digamma');
  }
  /** polygamma(1, x), digamma's derivative (its gradient, polygamma(2, x), is built from other ops). */
  trigamma(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return this.un('trigamma');
  }
  /** torch.polygamma(n, x) for n = 0 (digamma) and n = 1 (trigamma). */
  polygamma(this: Tensor<B, 'float'>, n: number): Tensor<B, 'float'> {
    const k = checkInteger('polygamma', 'n', n, 0);
    if (k > 1) throw new ArgumentError(`polygamma of order ${k} is not implemented (orders 0 and 1 are)`, { op: 'polygamma' });
    return this.un(k === 0 ? 'digamma' : 'trigamma');
  }

  // ---- casts ----------------------------------------------------------------------------

  /** float -> int truncates toward zero (NaN -> 0); anything -> bool is `x != 0`; bool -> number is 0/1. */
  cast<D extends DType>(dtype: D): Tensor<B, KindOf<D>> {
    return this.un('cast', { dtype: checkDType('cast', dtype) });
  }
  /** A copy with its own storage. */
  clone(): Tensor<B, K> {
    return this.un('copy');
  }

  /**
   * This tensor on `device`, returned at once. The same device is free (a view, no copy);
   * another device is an asynchronous 'transfer' op that a Router's bridge runs.
   */
  toDevice(device: ReturnType<B['defaultDevice']>): Tensor<B, K> {
    checkDevice('toDevice', device);
    const h = this.live('toDevice');
    this.backend.checkDevice('toDevice', device);
    if (device.key === h.device.key) return this.reshape(h.shape);
    return Tensor.submit(this.backend, buildTransfer(this.backend.runtime.ids, h, device))[0] as Tensor<B, K>;
  }

  // ---- autodiff (the `this` types make these compile errors on backends without autodiff) ----

  /** Marks this float tensor as a leaf whose gradient `backward()` reports; returns it. */
  requireGrad<A extends AutodiffBackend>(this: Tensor<A, 'float'>): Tensor<A, 'float'> {
    this.backend.requireGrad(this.live('requireGrad'));
    return this;
  }
  /** Whether the autodiff graph tracks this tensor (false on backends without autodiff). */
  get requiresGrad(): boolean {
    return isAutodiff(this.backend) && this.backend.requiresGrad(this.handle);
  }
  /** Gradients of this tensor (seeded with ones) with respect to every leaf that requires grad. */
  backward<A extends AutodiffBackend>(this: Tensor<A, 'float'>, options?: BackwardOptions): Gradients {
    return this.backend.backward(this.live('backward'), options);
  }
  /** This tensor's gradient in `grads`, or undefined when backward did not reach it. */
  grad<A extends AutodiffBackend>(this: Tensor<A, 'float'>, grads: Gradients): Tensor<A, 'float'> | undefined {
    // Untyped callers: what backward() returned, not a missing argument (a TypeError otherwise).
    if (typeof field(grads, 'get') !== 'function') {
      throw new ArgumentError(`grads must be the Gradients that backward() returned, got ${show(grads)}`, { op: 'grad', hint: 'const grads = loss.backward(); x.grad(grads)' });
    }
    return grads.get(this);
  }
  /** A view of this tensor that no graph tracks (on other backends: a plain view). */
  detach(): Tensor<B, K> {
    this.live('detach');
    // A view made where no tape records it.
    return noGrad(() => this.reshape(this.shape), this.backend.runtime);
  }

  // ---- reductions -------------------------------------------------------------------------

  private reduce<K2 extends Kind = K>(op: ReduceOp, dim: Dims, keepDims: boolean): Tensor<B, K2> {
    checkBoolean(op, 'keepDims', keepDims);
    if (dim !== null && typeof dim === 'object') return this.reduceDims<K2>(op, dim, keepDims);
    // A rank-0 tensor accepts dim 0 / -1 (as in PyTorch): that is the reduction over all.
    const d = dim === undefined || dim === null || this.rank === 0 ? null : normDim(op, dim, this.rank, this.shape);
    if (this.rank === 0 && dim !== undefined && dim !== null) normDim(op, dim, 0, this.shape);
    return this.un<K2>(op, { dim: d, keepDims });
  }
  /**
   * Several dims at once (torch's `sum(dim=[0, 1])`; an empty list means all): a chain of one-dim
   * reductions, largest dim first, so each pass reads only what the previous one left; max and min
   * reduce the dims merged into one instead.
   */
  private reduceDims<K2 extends Kind>(op: ReduceOp, dims: readonly number[], keepDims: boolean): Tensor<B, K2> {
    // A rank-0 tensor takes dims 0 and -1 (normDims checks an untyped caller's non-array too).
    const ds = normDims(op, dims, this.rank, this.shape);
    if (ds.length === 0 || ds.length >= this.rank) return this.reduce<K2>(op, null, keepDims);
    if (op === 'max' || op === 'min') {
      // One reduction over the dims moved last and merged, so that ties share the gradient evenly (torch.amax).
      const kept = this.shape.map((_, i) => i).filter((i) => !ds.includes(i));
      const moved = this.permute([...kept, ...ds]);
      let r: Tensor<B, K2>;
      try {
        const merged = moved.reshape([...kept.map((i) => this.shape[i]!), ds.reduce((n, d) => n * this.shape[d]!, 1)]);
        try {
          r = merged.reduce<K2>(op, kept.length, false);
        } finally {
          merged.dispose();
        }
      } finally {
        moved.dispose();
      }
      if (!keepDims) return r;
      const out = r.reshape(this.shape.map((d, i) => (ds.includes(i) ? 1 : d)));
      r.dispose();
      return out;
    }
    let t: Tensor<B, Kind> = this;
    for (const d of [...ds].reverse()) {
      const next = t.reduce<Kind>(op, d, true);
      if (t !== this) t.dispose();
      t = next;
    }
    if (keepDims) return t as Tensor<B, K2>;
    const out = t.reshape(this.shape.filter((_, i) => !ds.includes(i)));
    t.dispose();
    return out as Tensor<B, K2>;
  }
  /** Sum along `dim` (all elements when omitted; several dims as a list). Empty sums are 0. */
  sum(this: Accepting<B, 'sum'>, dim?: Dims, keepDims = false): Tensor<B, K> {
    return this.reduce('sum', dim, keepDims);
  }
  /** Mean (floats only). Empty means are NaN. */
  mean(this: Accepting<B, 'mean'>, dim?: Dims, keepDims = false): Tensor<B, 'float'> {
    return this.reduce('mean', dim, keepDims);
  }
  /** Max along a dim; NaN propagates. */
  max(this: Accepting<B, 'max'>, dim?: Dims, keepDims = false): Tensor<B, K> {
    return this.reduce('max', dim, keepDims);
  }
  min(this: Accepting<B, 'min'>, dim?: Dims, keepDims = false): Tensor<B, K> {
    return this.reduce('min', dim, keepDims);
  }
  prod(this: Accepting<B, 'prod'>, dim?: Dims, keepDims = false): Tensor<B, K> {
    return this.reduce('prod', dim, keepDims);
  }
  /** Index of the first maximum (NaN counts as the maximum), as int32. Over all elements: a flat index. */
  argmax(this: Accepting<B, 'argmax'>, dim?: number | null, keepDims = false): Tensor<B, 'int'> {
    return this.reduce('argmax', dim, keepDims);
  }
  argmin(this: Accepting<B, 'argmin'>, dim?: number | null, keepDims = false): Tensor<B, 'int'> {
    return this.reduce('argmin', dim, keepDims);
  }
  /** Max along `dim` with the index of each (the first maximum; a NaN counts as the maximum), as torch.max(dim). */
  maxWithIndices<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>, dim: number, keepDims = false): { values: Tensor<B, K2>; indices: Tensor<B, 'int'> } {
    checkBoolean('maxWithIndices', 'keepDims', keepDims);
    return withIndices(this, 'max', checkInteger('maxWithIndices', 'dim', dim), keepDims);
  }
  /** Min along `dim` with the index of each, as torch.min(dim). */
  minWithIndices<K2 extends KindsOf<'min'>>(this: Tensor<B, K2>, dim: number, keepDims = false): { values: Tensor<B, K2>; indices: Tensor<B, 'int'> } {
    checkBoolean('minWithIndices', 'keepDims', keepDims);
    return withIndices(this, 'min', checkInteger('minWithIndices', 'dim', dim), keepDims);
  }
  /** Variance over `dim` (all when omitted) with Bessel's `correction` (default 1, torch.var); divides by max(0, n - correction). */
  var(this: Tensor<B, 'float'>, dim?: Dims, options: VarOptions = {}): Tensor<B, 'float'> {
    return this.variance('var', dim, options);
  }
  /** var() for `op` (var or std): its argument errors name the function called. */
  private variance(this: Tensor<B, 'float'>, op: 'var' | 'std', dim: Dims | undefined, options: VarOptions): Tensor<B, 'float'> {
    const o = checkOptions(op, options);
    if (o['correction'] !== undefined) checkNumber(op, 'correction', o['correction'], true);
    if (o['keepDims'] !== undefined) checkBoolean(op, 'keepDims', o['keepDims']);
    const { dims, correction, keepDims } = varianceArgs(this.shape, dim, options, op);
    if (dims.length === this.rank) return this.un('var', { dim: null, keepDims, correction });
    if (dims.length === 1) return this.un('var', { dim: dims[0]!, keepDims, correction });
    // Several dims: moved last and merged (a view when the layout allows), then one kernel.
    const kept = this.shape.map((_, i) => i).filter((i) => !dims.includes(i));
    // The intermediates go even when the kernel refuses the input (an int tensor from untyped code).
    const moved = this.permute([...kept, ...dims]);
    let v: Tensor<B, 'float'>;
    try {
      const merged = moved.reshape([...kept.map((i) => this.shape[i]!), dims.reduce((n, d) => n * this.shape[d]!, 1)]);
      try {
        v = merged.un<'float'>('var', { dim: kept.length, keepDims: false, correction });
      } finally {
        merged.dispose();
      }
    } finally {
      moved.dispose();
    }
    if (!keepDims) return v;
    const out = v.reshape(this.shape.map((d, i) => (dims.includes(i) ? 1 : d)));
    v.dispose();
    return out;
  }
  /** Standard deviation: the square root of var() with the same options. */
  std(this: Tensor<B, 'float'>, dim?: Dims, options: VarOptions = {}): Tensor<B, 'float'> {
    const v = this.variance('std', dim, options);
    // sqrt(v) where v != 0, else 0: the gradient of a zero std is 0 (torch's std_backward), not
    // sqrt'(0) * 0 = NaN. NaN does not equal 0 and stays NaN.
    const zero = v.equal(0);
    const safe = v.maskFill(zero, 1);
    const root = safe.sqrt();
    const out = root.maskFill(zero, 0);
    for (const t of [v, zero, safe, root]) t.dispose();
    return out;
  }
  /**
   * The vector p-norm over `dim` (all dims when omitted or null), torch.linalg.vector_norm: p > 0
   * and p < 0 give (sum |x|^p)^(1/p) (0 for p < 0 where the reduction holds a zero), 0 the count of
   * non-zeros, Infinity / -Infinity the largest / smallest |x|. Gradients as torch's: 0 where the
   * norm is 0; the inf-norm's shared evenly among ties.
   */
  norm(this: Tensor<B, 'float'>, p = 2, dim?: Dims, keepDims = false): Tensor<B, 'float'> {
    checkOrder('norm', p);
    checkBoolean('norm', 'keepDims', keepDims);
    this.live('norm');
    return vectorNorm(this, p, dim, keepDims);
  }
  /** log(sum(exp(x))) over `dim`, stable (the max is taken out first; all -inf gives -inf). */
  logsumexp(this: Tensor<B, 'float'>, dim: Dims, keepDims = false): Tensor<B, 'float'> {
    checkBoolean('logsumexp', 'keepDims', keepDims);
    return logsumexp(this, dim, keepDims);
  }
  /** Whether any element is true (non-zero; NaN counts as true) over `dim` (all when omitted). Empty: false. */
  any(dim?: Dims, keepDims = false): Tensor<B, 'bool'> {
    checkBoolean('any', 'keepDims', keepDims);
    return anyAll(this, 'any', dim, keepDims);
  }
  /** Whether every element is true (non-zero) over `dim` (all when omitted). Empty: true. */
  all(dim?: Dims, keepDims = false): Tensor<B, 'bool'> {
    checkBoolean('all', 'keepDims', keepDims);
    return anyAll(this, 'all', dim, keepDims);
  }
  /** Numerically stable softmax along `dim` (default: the last). */
  softmax(this: Accepting<B, 'softmax'>, dim = -1): Tensor<B, 'float'> {
    return this.softmaxLike('softmax', dim);
  }
  logSoftmax(this: Accepting<B, 'logSoftmax'>, dim = -1): Tensor<B, 'float'> {
    return this.softmaxLike('logSoftmax', dim);
  }
  private softmaxLike(this: Tensor<B, 'float'>, op: 'softmax' | 'logSoftmax', dim: number): Tensor<B, 'float'> {
    const d = normDim(op, dim, this.rank, this.shape);
    if (this.rank > 0) return this.un(op, { dim: d });
    // A scalar is a row of one: run it as shape [1].
    const v = this.reshape([1]);
    try {
      return v.un<'float'>(op, { dim: 0 }).squeezeOwned(0);
    } finally {
      v.dispose();
    }
  }

  // ---- scans, orderings, triangles ----------------------------------------------------------

  /** Inclusive cumulative sum along `dim` (ints wrap at 32 bits). */
  cumsum(dim: number): Tensor<B, K> {
    return this.alongDim('cumsum', dim, (d) => ({ dim: d }));
  }
  /** Inclusive cumulative product along `dim`. */
  cumprod(dim: number): Tensor<B, K> {
    return this.alongDim('cumprod', dim, (d) => ({ dim: d }));
  }
  /** Runs a one-dim op; a rank-0 tensor runs as shape [1] (dim 0 or -1, as torch). */
  private alongDim<N extends 'cumsum' | 'cumprod' | 'argsort', K2 extends Kind = K>(op: N, dim: number, attrs: (d: number) => OpAttrs[N]): Tensor<B, K2> {
    const d = normDim(op, dim, this.rank, this.shape);
    if (this.rank > 0) return this.un<K2>(op, attrs(d));
    const v = this.reshape([1]);
    try {
      return v.un<K2>(op, attrs(0)).squeezeOwned(0);
    } finally {
      v.dispose();
    }
  }
  /** Reverses the order of the elements along each of `dims` (a copy, as torch.flip). */
  flip(dims: number | readonly number[]): Tensor<B, K> {
    const list = checkIntegers('flip', 'dims', typeof dims === 'number' ? [dims] : checkArray('flip', 'dims', dims));
    const ds = list.map((d) => normDim('flip', d, this.rank, this.shape));
    if (new Set(ds).size !== ds.length) throw new ShapeError(`dims [${list.join(', ')}] list a dim twice`, { op: 'flip', shapes: [this.shape], hint: 'list each dim once' });
    return this.rank === 0 ? this.clone() : this.un('flip', { dims: ds });
  }
  /**
   * Rotates the elements along `dims` by `shifts` (torch.roll): out[i] = x[i - shift], wrapping.
   * Without dims the tensor is rolled as if flattened, then given its shape back.
   */
  roll(shifts: number | readonly number[], dims?: number | readonly number[]): Tensor<B, K> {
    const ints = (name: string, v: unknown): number | number[] => (typeof v === 'number' ? checkIntegers('roll', name, [v])[0]! : checkIntegers('roll', name, checkArray('roll', name, v)));
    shifts = ints('shifts', shifts);
    if (dims !== undefined) dims = ints('dims', dims);
    if (dims === undefined) return rollFlat(this, shifts);
    const args = rollArgs(this.shape, shifts, dims);
    return this.rank === 0 ? this.clone() : this.un('roll', args);
  }
  /** The lower triangle of the last two dims (col - row <= diagonal), zeros above; batched over leading dims. */
  tril(diagonal = 0): Tensor<B, K> {
    return this.un('tril', { diagonal: this.diagonalIn('tril', diagonal) });
  }
  /** The upper triangle of the last two dims (col - row >= diagonal), zeros below. */
  triu(diagonal = 0): Tensor<B, K> {
    return this.un('triu', { diagonal: this.diagonalIn('triu', diagonal) });
  }
  /** A diagonal offset brought into [-rows, cols] (the same triangle): kernels take it as an i32. */
  private diagonalIn(op: 'tril' | 'triu', diagonal: unknown): number {
    const d = checkInteger(op, 'diagonal', diagonal);
    if (this.rank < 2) return d;
    return Math.min(Math.max(d, -this.shape[this.rank - 2]!), this.shape[this.rank - 1]!);
  }
  /** The int32 positions that sort each line along `dim` (stable; NaN last, or first when descending), as torch.argsort(stable=True). */
  argsort(dim = -1, descending = false): Tensor<B, 'int'> {
    checkBoolean('argsort', 'descending', descending);
    return this.alongDim<'argsort', 'int'>('argsort', dim, (d) => ({ dim: d, descending }));
  }
  /** The int32 positions of the k largest (or smallest) elements along `dim`, in order: topk's indices alone. */
  argtopk(k: number, dim = -1, largest = true): Tensor<B, 'int'> {
    checkInteger('argtopk', 'k', k);
    checkBoolean('argtopk', 'largest', largest);
    const d = topkDim(this.shape, k, dim);
    if (this.rank > 0) return this.un('argtopk', { dim: d, k, largest });
    const r = topk(this, k, d, largest);
    r.values.dispose();
    return r.indices;
  }
  /** Sorted values and their positions along `dim` (torch.sort, stable). */
  sort(dim = -1, descending = false): { values: Tensor<B, K>; indices: Tensor<B, 'int'> } {
    checkBoolean('sort', 'descending', descending);
    return sortWithIndices(this, dim, descending);
  }
  /** The k largest (or smallest) elements along `dim`, sorted, with their positions (torch.topk; NaN counts as the largest). */
  topk(k: number, dim = -1, largest = true): { values: Tensor<B, K>; indices: Tensor<B, 'int'> } {
    checkInteger('topk', 'k', k);
    checkBoolean('topk', 'largest', largest);
    return topk(this, k, dim, largest);
  }

  // ---- more reductions, indexing and shape ops (torch equivalents; compositions of the ops above) ----

  /** torch.tile: repeat with `reps` padded by leading ones to the rank. */
  tile(reps: readonly number[]): Tensor<B, K> {
    return tile(this, reps);
  }
  /** torch.repeat_interleave(x, repeats, dim): each element `repeats` times in a row (without dim: of the flattened tensor). */
  repeatInterleave(repeats: number, dim?: number | null): Tensor<B, K> {
    return repeatInterleave(this, repeats, dim);
  }
  /** torch.repeat_interleave with a tensor of repeats (one per entry along `dim`, or one for all): async, the length depends on them. */
  repeatInterleaveAsync(repeats: Tensor<B, 'int'>, dim?: number | null): Promise<Tensor<B, K>> {
    return repeatInterleaveBy(this, repeats, dim);
  }
  /** torch.unbind: the slices along `dim` without that dim. */
  unbind(dim = 0): Array<Tensor<B, K>> {
    return unbind(this, dim);
  }
  /** torch.diagonal: the diagonal `offset` of dims dim1 and dim2, as a new last dim. */
  diagonal(offset = 0, dim1 = 0, dim2 = 1): Tensor<B, K> {
    return diagonal(this, offset, dim1, dim2);
  }
  /** torch.diag_embed: the last dim becomes the diagonal `offset` of square matrices in dims dim1, dim2. */
  diagEmbed(offset = 0, dim1 = -2, dim2 = -1): Tensor<B, K> {
    return diagEmbed(this, offset, dim1, dim2);
  }
  /** torch.diag: 1-D to a square matrix with it on the diagonal `offset`; 2-D to its diagonal `offset`. */
  diag(offset = 0): Tensor<B, K> {
    return diag(this, offset);
  }
  /** torch.outer of two 1-D tensors. */
  outer<K2 extends KindsOf<'mul'>>(this: Tensor<B, K2>, other: Tensor<B, K2>): Tensor<B, K2> {
    checkTensor('outer', 'the other operand', other);
    return outer(this, other);
  }
  /** torch.nansum: the sum with NaN counted as 0. */
  nansum<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>, dim?: Dims, keepDims = false): Tensor<B, K2> {
    return nansum(this, dim, keepDims);
  }
  /** torch.nanmean: the mean of the non-NaN elements. */
  nanmean(this: Tensor<B, 'float'>, dim?: Dims, keepDims = false): Tensor<B, 'float'> {
    return nanmean(this, dim, keepDims);
  }
  /** torch.count_nonzero: int32 counts of the non-zero elements over `dim` (all when omitted). */
  countNonzero(dim?: Dims): Tensor<B, 'int'> {
    return countNonzero(this, dim);
  }
  /** torch.median(): the lower median of all elements (NaN if any is NaN); the gradient is shared among the elements equal to it. */
  median<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>): Tensor<B, K2> {
    return medianAll(this);
  }
  /** torch.nanmedian(): the lower median of the non-NaN elements (NaN when all are); the gradient is shared among the elements equal to it. */
  nanmedian<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>): Tensor<B, K2> {
    return medianAll(this, 'nanmedian');
  }
  /** torch.median(dim): the lower median along `dim` and its index (a line holding NaN gives its first NaN). */
  medianWithIndices<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>, dim: number, keepDims = false): { values: Tensor<B, K2>; indices: Tensor<B, 'int'> } {
    return median(this, dim, keepDims);
  }
  /** torch.nanmedian(dim): the lower median of the non-NaN elements along `dim`, and its index. */
  nanmedianWithIndices<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>, dim: number, keepDims = false): { values: Tensor<B, K2>; indices: Tensor<B, 'int'> } {
    return nanmedian(this, dim, keepDims);
  }
  /** torch.mode(dim): the most frequent value along `dim` (the smallest of equally frequent ones) and its last index. */
  mode<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>, dim = -1, keepDims = false): { values: Tensor<B, K2>; indices: Tensor<B, 'int'> } {
    return mode(this, dim, keepDims);
  }
  /** torch.kthvalue: the k-th smallest (1-based) along `dim` and its index. */
  kthvalue<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>, k: number, dim = -1, keepDims = false): { values: Tensor<B, K2>; indices: Tensor<B, 'int'> } {
    return kthvalue(this, k, dim, keepDims);
  }
  /** torch.cummax: the running max along `dim` and the index holding it (the last among ties; NaN propagates). */
  cummax<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>, dim: number): { values: Tensor<B, K2>; indices: Tensor<B, 'int'> } {
    return cumExtreme(this, 'max', dim);
  }
  /** torch.cummin: the running min along `dim` and the index holding it. */
  cummin<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>, dim: number): { values: Tensor<B, K2>; indices: Tensor<B, 'int'> } {
    return cumExtreme(this, 'min', dim);
  }
  /** torch.logcumsumexp: log(cumsum(exp(x))) along `dim`, without overflow or underflow. */
  logcumsumexp(this: Tensor<B, 'float'>, dim: number): Tensor<B, 'float'> {
    return logcumsumexp(this, dim);
  }
  /** torch.aminmax: the min and the max over `dim` (all when omitted). */
  aminmax<K2 extends KindsOf<'max'>>(this: Tensor<B, K2>, dim?: number | null, keepDims = false): { min: Tensor<B, K2>; max: Tensor<B, K2> } {
    return aminmax(this, dim, keepDims);
  }
  /** torch.index_add (out of place): adds alpha * source[.., i, ..] at position index[i] along `dim`. */
  indexAdd<K2 extends KindsOf<'scatterAdd'>>(this: Tensor<B, K2>, dim: number, index: Tensor<B, 'int'>, source: Tensor<B, K2>, alpha = 1): Tensor<B, K2> {
    return indexAdd(this, dim, index, source, alpha);
  }
  /** torch.scatter (out of place): writes src (or a number) at `index` along `dim`; of repeated indices the last along dim wins. */
  scatter<K2 extends KindsOf<'scatterAdd'>>(this: Tensor<B, K2>, dim: number, index: Tensor<B, 'int'>, src: Tensor<B, K2> | number): Tensor<B, K2> {
    return scatter(this, dim, index, src);
  }
  /** torch.scatter_reduce (out of place) with 'sum', 'prod', 'mean', 'amax' or 'amin'. */
  scatterReduce<K2 extends KindsOf<'scatterAdd'>>(this: Tensor<B, K2>, dim: number, index: Tensor<B, 'int'>, src: Tensor<B, K2>, reduce: ScatterReduce, includeSelf = true): Tensor<B, K2> {
    return scatterReduce(this, dim, index, src, reduce, includeSelf);
  }
  /** torch.take: the tensor read as 1-D at `index` (negative entries count from the end). */
  take(index: Tensor<B, 'int'>): Tensor<B, K> {
    return take(this, index);
  }
  /** torch.take_along_dim: gather with broadcasting outside `dim`; without dim, of both flattened. */
  takeAlongDim(index: Tensor<B, 'int'>, dim?: number | null): Tensor<B, K> {
    return takeAlongDim(this, index, dim);
  }
  /** torch.nonzero: the int32 coordinates [count, rank] of the non-zero elements (async: the count depends on the values). */
  nonzero(): Promise<Tensor<B, 'int'>> {
    return nonzero(this, false).then((r) => (Array.isArray(r) ? r[0]! : r));
  }
  /** torch.nonzero(as_tuple=True): one int32 index tensor per dim (async). */
  nonzeroTuple(): Promise<Array<Tensor<B, 'int'>>> {
    return nonzero(this, true).then((r) => (Array.isArray(r) ? r : [r]));
  }
  /** torch.masked_select: the elements where the (broadcast) mask is true, as 1-D (async); the gradient flows to them. */
  maskedSelect(mask: Tensor<B, 'bool'>): Promise<Tensor<B, K>> {
    return maskedSelect(this, mask);
  }
  /** torch.unique: the distinct values (or slices along `dim`), sorted, with `inverse` and `counts` when asked (async). */
  unique(options: UniqueOptions = {}): Promise<UniqueResult<B, K>> {
    return unique(this, options);
  }

  /**
   * Pads with `pads` = [lastBefore, lastAfter, secondLastBefore, ...] (torch.nn.functional.pad's
   * order). 'constant' fills with `value` (negative pads crop); 'reflect' mirrors without repeating
   * the edge (pads < size); 'replicate' repeats the edge; 'circular' wraps (pads <= size).
   */
  pad(pads: readonly number[], mode: PadMode = 'constant', value = 0): Tensor<B, K> {
    checkIntegers('pad', 'pads', checkArray('pad', 'pads', pads));
    if (typeof mode !== 'string') throw new ArgumentError(`mode must be 'constant', 'reflect', 'replicate' or 'circular', got ${show(mode)}`, { op: 'pad' });
    checkNumber('pad', 'value', value);
    // A disposed input fails here, before the filled tensor it would be copied into is made.
    this.live('pad');
    return pad(this, pads, mode, value);
  }
  /** One-hot rows for int32 class indices: shape [...this.shape, numClasses] (torch.nn.functional.one_hot). */
  oneHot<D extends 'int32' | 'float32' | 'float16' = 'int32'>(this: Tensor<B, 'int'>, numClasses: number, dtype?: D): Tensor<B, KindOf<D>> {
    return oneHot(this, checkInteger('oneHot', 'numClasses', numClasses), dtype);
  }

  // ---- common torch ops composed from the ones above (src/tensor/misc-ops.ts) ----------------

  /** torch.addmm: beta * this + alpha * (mat1 @ mat2); this broadcasts to [n, p]; beta = 0 ignores this (NaN too). */
  addmm(this: Tensor<B, 'float'>, mat1: Tensor<B, 'float'>, mat2: Tensor<B, 'float'>, options: AddmmOptions = {}): Tensor<B, 'float'> {
    return addmm(this, mat1, mat2, options);
  }
  /** torch.baddbmm: beta * this + alpha * bmm(batch1, batch2). */
  baddbmm(this: Tensor<B, 'float'>, batch1: Tensor<B, 'float'>, batch2: Tensor<B, 'float'>, options: AddmmOptions = {}): Tensor<B, 'float'> {
    return baddbmm(this, batch1, batch2, options);
  }
  /** torch.addbmm: beta * this + alpha * the sum over the batch of batch1[i] @ batch2[i]. */
  addbmm(this: Tensor<B, 'float'>, batch1: Tensor<B, 'float'>, batch2: Tensor<B, 'float'>, options: AddmmOptions = {}): Tensor<B, 'float'> {
    return addbmm(this, batch1, batch2, options);
  }
  /** torch.addmv: beta * this + alpha * (mat @ vec). */
  addmv(this: Tensor<B, 'float'>, mat: Tensor<B, 'float'>, vec: Tensor<B, 'float'>, options: AddmmOptions = {}): Tensor<B, 'float'> {
    return addmv(this, mat, vec, options);
  }
  /** torch.addr: beta * this + alpha * outer(vec1, vec2). */
  addr(this: Tensor<B, 'float'>, vec1: Tensor<B, 'float'>, vec2: Tensor<B, 'float'>, options: AddmmOptions = {}): Tensor<B, 'float'> {
    return addr(this, vec1, vec2, options);
  }
  /** torch.linalg.cross along `dim` (size 3; default the last), broadcasting. */
  cross<K2 extends KindsOf<'mul'>>(this: Tensor<B, K2>, other: Tensor<B, K2>, dim = -1): Tensor<B, K2> {
    return cross(this, other, dim);
  }
  /** torch.cdist(this, x2, p): p-norm distances between rows, [..., P, M] x [..., R, M] -> [..., P, R]. */
  cdist(this: Tensor<B, 'float'>, x2: Tensor<B, 'float'>, p = 2): Tensor<B, 'float'> {
    return cdist(this, x2, p);
  }
  /** torch.trace: the sum of the main diagonal of a 2-D tensor. */
  trace<K2 extends KindsOf<'sum'>>(this: Tensor<B, K2>): Tensor<B, K2> {
    return trace(this);
  }
  /** torch.kron: the Kronecker product. */
  kron<K2 extends KindsOf<'mul'>>(this: Tensor<B, K2>, other: Tensor<B, K2>): Tensor<B, K2> {
    return kron(this, other);
  }
  /** torch.rot90: k quarter turns in the plane `dims`, from dims[0] towards dims[1]. */
  rot90(k = 1, dims: readonly number[] = [0, 1]): Tensor<B, K> {
    return rot90(this, k, dims);
  }
  /** torch.fliplr: reverses dim 1 (rank >= 2). */
  fliplr(): Tensor<B, K> {
    if (this.rank < 2) throw new ShapeError('fliplr needs a tensor of rank 2 or more', { op: 'fliplr', shapes: [this.shape] });
    return this.flip(1);
  }
  /** torch.flipud: reverses dim 0 (rank >= 1). */
  flipud(): Tensor<B, K> {
    if (this.rank < 1) throw new ShapeError('flipud needs a tensor of rank 1 or more', { op: 'flipud', shapes: [this.shape] });
    return this.flip(0);
  }
  /** torch.movedim: moves dims `source` to `destination`, the others keeping their order. */
  movedim(source: number | readonly number[], destination: number | readonly number[]): Tensor<B, K> {
    return movedim(this, source, destination);
  }
  /** torch.swapaxes (swapDims under torch's name). */
  swapaxes(a: number, b: number): Tensor<B, K> {
    return this.swapDims(a, b);
  }
  /** torch.searchsorted(this, values): where each value goes in this sorted innermost dim (int32; `right` / side 'right' for the last place). */
  searchsorted<K2 extends KindsOf<'sum'>>(this: Tensor<B, K2>, values: Tensor<B, K2> | number, options: SearchOptions = {}): Tensor<B, 'int'> {
    return searchsorted(this, values, options);
  }
  /** torch.bucketize(this, boundaries): the bucket index of each element (int32); `right` puts a value equal to a boundary above it. */
  bucketize<K2 extends KindsOf<'sum'>>(this: Tensor<B, K2>, boundaries: Tensor<B, K2>, options: { readonly right?: boolean } = {}): Tensor<B, 'int'> {
    return bucketize(this, boundaries, options);
  }
  /** torch.histc: counts in `bins` equal bins over [min, max] (min = max: the data's range). */
  histc(this: Tensor<B, 'float'>, bins = 100, min = 0, max = 0): Tensor<B, 'float'> {
    return histc(this, bins, min, max);
  }
  /** torch.vander(this, N, increasing): powers of a 1-D tensor as columns, highest first (increasing: x^0 first). */
  vander<K2 extends KindsOf<'mul'>>(this: Tensor<B, K2>, n?: number | null, increasing = false): Tensor<B, K2> {
    return vander(this, n, increasing);
  }
  /** torch's contiguous: here always a copy with its own storage (clone), so it is disposed on its own. */
  contiguous(): Tensor<B, K> {
    return this.clone();
  }
  /** torch.logaddexp2: log2(2^this + 2^other). */
  logaddexp2(this: Tensor<B, 'float'>, other: Operand<B, 'float'>): Tensor<B, 'float'> {
    return logaddexp2(this, other);
  }
  /** torch.sinc: sin(pi x) / (pi x), 1 at 0. */
  sinc(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return sinc(this);
  }
  /** torch.deg2rad. */
  deg2rad(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return scaleFloat('deg2rad', this, Math.PI / 180);
  }
  /** torch.rad2deg. */
  rad2deg(this: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return scaleFloat('rad2deg', this, 180 / Math.PI);
  }
  /** torch.heaviside(this, values): 0 below 0, 1 above, `values` at 0. */
  heaviside<K2 extends KindsOf<'sum'>>(this: Tensor<B, K2>, values: Tensor<B, K2> | number): Tensor<B, K2> {
    return heaviside(this, values);
  }
  /** torch.nan_to_num: NaN to `nan`, +-inf to `posinf` / `neginf` (default the dtype's largest finite values). */
  nanToNum(nan = 0, posinf?: number | null, neginf?: number | null): Tensor<B, K> {
    return nanToNum(this, nan, posinf, neginf);
  }
  /** torch.signbit: true where the sign bit is set (-0 included). */
  signbit(): Tensor<B, 'bool'> {
    return signbit(this);
  }
  /** torch.isin(this, test): whether each element is among `test`'s (`invert` for not). */
  isin(test: Tensor<B, K> | number, invert = false): Tensor<B, 'bool'> {
    return isin(this, test, invert);
  }
  /** torch.isclose: equal, or |this - other| <= atol + rtol |other| (defaults 1e-5, 1e-8; `equalNan`). */
  isclose(other: Tensor<B, K> | number, options: CloseOptions = {}): Tensor<B, 'bool'> {
    return isclose(this, other, options);
  }
  /** torch.allclose: whether every element is close (isclose), read back. */
  allclose(other: Tensor<B, K> | number, options: CloseOptions = {}): Promise<boolean> {
    return allclose(this, other, options);
  }

  // ---- matmul ---------------------------------------------------------------------------

  /** torch.matmul: batched with broadcast batch dims; 1-D operands are promoted and the added dim removed. */
  matmul(this: Accepting<B, 'matmul'>, other: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensor('matmul', 'the other operand', other);
    // Under autocast (src/amp/autocast.ts): float32 operands multiply in float16, the result comes back float32.
    if (this.backend.runtime.autocastDepth > 0 && this.dtype === 'float32' && other.dtype === 'float32') {
      const a = this.cast('float16');
      const b = other.cast('float16');
      const y = a.matmul(b);
      const out = y.cast('float32');
      for (const t of [a, b, y]) t.dispose();
      return out;
    }
    if (this.rank === 0 || other.rank === 0) {
      throw new ShapeError('matmul needs operands of rank >= 1', { op: 'matmul', shapes: [this.shape, other.shape], hint: 'use mul for scalars' });
    }
    const a = this.rank === 1 ? this.unsqueeze(0) : this;
    let b: Tensor<B, 'float'> = other;
    try {
      if (other.rank === 1) b = other.unsqueeze(1);
      let out = Tensor.run(this.backend, 'matmul', [a, b], {})[0] as Tensor<B, 'float'>;
      if (this.rank === 1) out = out.squeezeOwned(-2);
      if (other.rank === 1) out = out.squeezeOwned(-1);
      return out;
    } finally {
      if (a !== this) a.dispose();
      if (b !== other) b.dispose();
    }
  }

  private squeezeOwned(dim: number): Tensor<B, K> {
    const r = this.squeeze(dim);
    this.dispose();
    return r;
  }

  // ---- movement (views where the backend can) ------------------------------------------------

  /** One dim may be -1. A view when the layout allows, else a copy. */
  reshape(shape: readonly number[]): Tensor<B, K> {
    return this.un('reshape', { shape: resolveReshape('reshape', this.shape, checkTargetShape('reshape', this.shape, shape, MAX_RANK)) });
  }
  flatten(startDim = 0, endDim = -1): Tensor<B, K> {
    if (this.rank === 0) return this.reshape([1]);
    const s = normDim('flatten', startDim, this.rank, this.shape);
    const e = normDim('flatten', endDim, this.rank, this.shape);
    if (s > e) throw new ShapeError(`startDim ${startDim} is after endDim ${endDim}`, { op: 'flatten', shapes: [this.shape] });
    const sh = this.shape;
    return this.reshape([...sh.slice(0, s), sh.slice(s, e + 1).reduce((a, b) => a * b, 1), ...sh.slice(e + 1)]);
  }
  /** Removes `dim` if it has size 1 (PyTorch: a no-op otherwise), or every size-1 dim. */
  squeeze(dim?: number): Tensor<B, K> {
    const sh = this.shape;
    if (dim === undefined || dim === null) return this.reshape(sh.filter((d) => d !== 1));
    const d = normDim('squeeze', dim, this.rank, sh);
    return this.reshape(sh[d] === 1 ? sh.filter((_, i) => i !== d) : sh);
  }
  unsqueeze(dim: number): Tensor<B, K> {
    const d = normDim('unsqueeze', dim, this.rank, this.shape, 1);
    const sh = this.shape;
    sh.splice(d, 0, 1);
    return this.reshape(sh);
  }
  permute(dims: readonly number[]): Tensor<B, K> {
    checkArray('permute', 'dims', dims);
    if (dims.length !== this.rank) throw new ShapeError(`permute needs ${this.rank} dims, got ${dims.length}`, { op: 'permute', shapes: [this.shape] });
    return this.un('permute', { dims: dims.map((d) => normDim('permute', d, this.rank, this.shape)) });
  }
  /** Swaps the last two dims (Burn's transpose); a rank < 2 tensor is returned as a view of itself. */
  transpose(): Tensor<B, K> {
    if (this.rank < 2) return this.reshape(this.shape);
    return this.swapDims(-2, -1);
  }
  swapDims(a: number, b: number): Tensor<B, K> {
    const x = normDim('swapDims', a, this.rank, this.shape);
    const y = normDim('swapDims', b, this.rank, this.shape);
    // Rank 0 (dims 0 or -1, as torch): nothing to swap, a view of the same value.
    if (this.rank === 0) return this.un('reshape', { shape: [] });
    const dims = this.shape.map((_, i) => i);
    dims[x] = y;
    dims[y] = x;
    return this.un('permute', { dims });
  }
  /** Broadcasts size-1 dims to `shape` (-1 keeps a dim); new leading dims may be added. No copy. */
  expand(shape: readonly number[]): Tensor<B, K> {
    return this.un('expand', { shape: checkTargetShape('expand', this.shape, shape, MAX_RANK) });
  }
  /** Per dim: an index, a [start, end) pair (null for open ends, negatives count from the end), or { start, end, step }. Dims keep their rank. */
  slice(ranges: readonly SliceSpec[]): Tensor<B, K> {
    return this.un('slice', { ranges: normSlices('slice', this.shape, ranges) });
  }
  /** A copy of this tensor with the region `ranges` replaced by `value` (of the region's shape). */
  sliceAssign(ranges: readonly SliceSpec[], value: Tensor<B, K>): Tensor<B, K> {
    checkTensor('sliceAssign', 'the value', value);
    const r = normSlices('sliceAssign', this.shape, ranges);
    return Tensor.run(this.backend, 'sliceAssign', [this, value], { ranges: r })[0] as Tensor<B, K>;
  }
  narrow(dim: number, start: number, length: number): Tensor<B, K> {
    const d = normDim('narrow', dim, this.rank, this.shape);
    const size = this.shape[d]!;
    checkInteger('narrow', 'start', start);
    checkInteger('narrow', 'length', length);
    const s = start < 0 ? start + size : start;
    if (length < 0 || s < 0 || s + length > size) {
      throw new ShapeError(`narrow(${dim}, ${start}, ${length}) is out of range for a dim of size ${size}`, { op: 'narrow', shapes: [this.shape] });
    }
    const ranges: SliceSpec[] = this.shape.map(() => null);
    ranges[d] = [s, s + length];
    return this.slice(ranges);
  }
  /** Splits along `dim` into pieces of `size` (the last may be smaller), or into the given sizes. */
  split(size: number | readonly number[], dim = 0): Array<Tensor<B, K>> {
    if (this.rank === 0) throw new ShapeError('split needs a tensor of rank 1 or more', { op: 'split', shapes: [this.shape] });
    const d = normDim('split', dim, this.rank, this.shape);
    const n = this.shape[d]!;
    let sizes: number[];
    if (typeof size === 'number') {
      checkInteger('split', 'split size', size, 1);
      sizes = [];
      for (let at = 0; at < n; at += size) sizes.push(Math.min(size, n - at));
      if (n === 0) sizes.push(0);
    } else {
      sizes = checkArray('split', 'split sizes (a number or an array)', size).map((s) => checkInteger('split', 'each split size', s, 0));
      if (sizes.reduce((a, b) => a + b, 0) !== n || sizes.some((s) => !Number.isInteger(s) || s < 0)) {
        throw new ShapeError(`split sizes [${sizes.join(', ')}] do not add up to dim ${dim} of size ${n}`, { op: 'split', shapes: [this.shape] });
      }
    }
    let at = 0;
    return sizes.map((s) => {
      const piece = this.narrow(d, at, s);
      at += s;
      return piece;
    });
  }
  /** Splits into `chunks` pieces along `dim` (torch.chunk: pieces of ceil(n / chunks)). */
  chunk(chunks: number, dim = 0): Array<Tensor<B, K>> {
    checkInteger('chunk', 'chunks', chunks, 1);
    if (this.rank === 0) throw new ShapeError('chunk needs a tensor of rank 1 or more', { op: 'chunk', shapes: [this.shape] });
    const d = normDim('chunk', dim, this.rank, this.shape);
    const n = this.shape[d]!;
    return this.split(Math.max(1, Math.ceil(n / chunks)), d);
  }
  /** torch.Tensor.repeat: tiles the tensor `sizes[i]` times along dim i (sizes may add leading dims). */
  repeat(sizes: readonly number[]): Tensor<B, K> {
    checkArray('repeat', 'sizes', sizes);
    if (sizes.some((s) => typeof s !== 'number' || !Number.isSafeInteger(s) || s < 0)) throw new ArgumentError(`repeat sizes must be non-negative integers: [${sizes.map(show).join(', ')}]`, { op: 'repeat' });
    if (sizes.length < this.rank) throw new ShapeError('repeat needs at least one size per dim', { op: 'repeat', shapes: [this.shape, sizes] });
    if (sizes.length > MAX_RANK) throw new ShapeError(`repeat to rank ${sizes.length}: tensors have at most ${MAX_RANK} dims`, { op: 'repeat', shapes: [this.shape, sizes] });
    const src = [...new Array<number>(sizes.length - this.rank).fill(1), ...this.shape];
    // The result's size first: the steps below make temporaries that an error would leak.
    checkSize('repeat', src.map((d, i) => d * sizes[i]!), this.dtype);
    // [a, b] -> [1, a, 1, b] -> expand [r0, a, r1, b] -> reshape [r0 * a, r1 * b]
    const interleaved = src.flatMap((d) => [1, d]);
    const expanded = src.flatMap((d, i) => [sizes[i]!, d]);
    const v = this.un('reshape', { shape: interleaved });
    try {
      const e = v.un('expand', { shape: expanded });
      try {
        return e.un('reshape', { shape: src.map((d, i) => d * sizes[i]!) });
      } finally {
        e.dispose();
      }
    } finally {
      v.dispose();
    }
  }
  /** torch.gather: out[i][j] = this[index[i][j]][j] for dim 0 (and so on). Indices out of range fail the op. */
  gather(dim: number, index: Tensor<B, 'int'>): Tensor<B, K> {
    checkTensor('gather', 'the index', index);
    // A rank-0 tensor gathers as one of rank 1 (torch: dim 0 or -1, index of rank 0).
    if (this.rank === 0) return Tensor.asVector(this, 'gather', dim, index.shape, [index], (x, [i]) => Tensor.run(x.backend, 'gather', [x, i!], indexAttrs(0))[0]!) as Tensor<B, K>;
    return Tensor.run(this.backend, 'gather', [this, index], indexAttrs(normDim('gather', dim, this.rank, this.shape)))[0] as Tensor<B, K>;
  }
  /** torch.scatter_add (out of place): out = this; out[index[i][j]][j] += values[i][j] for dim 0. Values may be larger than the index in any dim (their leading block is read, as torch). */
  scatterAdd(this: Accepting<B, 'scatterAdd'>, dim: number, index: Tensor<B, 'int'>, values: Tensor<B, K>): Tensor<B, K> {
    checkTensor('scatterAdd', 'the index', index);
    checkTensor('scatterAdd', 'the values', values);
    if (this.rank === 0) return Tensor.asVector(this, 'scatterAdd', dim, [], [index, values], (x, [i, v]) => Tensor.run(x.backend, 'scatterAdd', [x, i!, v!], indexAttrs(0))[0]!) as Tensor<B, K>;
    const d = normDim('scatterAdd', dim, this.rank, this.shape);
    // torch takes values larger than the index (index.size(k) <= src.size(k) for every k) and reads
    // only their leading index-shaped block: that block is sliced out here (the kernel wants one shape).
    const larger = values.rank === index.rank && values.shape.some((n, k) => n !== index.shape[k]) && values.shape.every((n, k) => n >= index.shape[k]!);
    if (!larger) return Tensor.run(this.backend, 'scatterAdd', [this, index, values], indexAttrs(d))[0] as Tensor<B, K>;
    const block = values.slice(index.shape.map((n): SliceSpec => [0, n]));
    try {
      return Tensor.run(this.backend, 'scatterAdd', [this, index, block], indexAttrs(d))[0] as Tensor<B, K>;
    } finally {
      block.dispose();
    }
  }
  /** torch.index_select: picks the entries `indices` (1-D int32) along `dim`. */
  indexSelect(dim: number, indices: Tensor<B, 'int'>): Tensor<B, K> {
    checkTensor('indexSelect', 'the indices', indices);
    if (this.rank === 0) throw new ShapeError('indexSelect needs a tensor of rank 1 or more', { op: 'indexSelect', shapes: [this.shape], hint: 'reshape([1]) it first' });
    return Tensor.run(this.backend, 'indexSelect', [this, indices], indexAttrs(normDim('indexSelect', dim, this.rank, this.shape)))[0] as Tensor<B, K>;
  }

  /**
   * An op on a rank-0 tensor run on its rank-1 view: `dim` must be 0 or -1, rank-0 operands are
   * viewed as [1] too, and the result is reshaped to `shape` (gather: the index's; scatterAdd: rank 0).
   */
  private static asVector<B extends Backend>(self: Tensor<B, Kind>, op: string, dim: number, shape: readonly number[], operands: ReadonlyArray<Tensor<B, Kind>>, fn: (x: Tensor<B, Kind>, operands: Array<Tensor<B, Kind>>) => Tensor<B, Kind>): Tensor<B, Kind> {
    normDim(op, dim, 0, self.shape);
    const lifted: Array<Tensor<B, Kind>> = [];
    try {
      const x = self.reshape([1]);
      lifted.push(x);
      const rest = operands.map((t) => {
        if (t.rank !== 0) return t;
        const v = t.reshape([1]);
        lifted.push(v);
        return v;
      });
      const out = fn(x, rest);
      if (out.rank === shape.length) return out;
      try {
        return out.reshape([...shape]);
      } finally {
        out.dispose();
      }
    } finally {
      for (const t of lifted) t.dispose();
    }
  }

  // ---- joining --------------------------------------------------------------------------

  /** Concatenates along an existing dim. */
  static cat<B extends Backend, K extends Kind>(tensors: ReadonlyArray<Tensor<B, K>>, dim = 0): Tensor<B, K> {
    for (const t of checkArray('cat', 'the tensors', tensors)) checkTensor('cat', 'each entry', t);
    const first = tensors[0];
    if (!first) throw new ArgumentError('cat needs at least one tensor', { op: 'cat' });
    for (const t of tensors) {
      if (t.rank !== first.rank) throw new ShapeError('cat needs tensors of one rank', { op: 'cat', shapes: tensors.map((x) => x.shape) });
    }
    if (first.rank === 0) throw new ShapeError('rank-0 tensors cannot be concatenated', { op: 'cat', shapes: tensors.map((x) => x.shape), hint: 'use Tensor.stack, or reshape([1]) each first' });
    const d = normDim('cat', dim, first.rank, first.shape);
    return Tensor.run(first.backend, 'cat', tensors, { dim: d })[0] as Tensor<B, K>;
  }
  /** Stacks along a new dim. */
  static stack<B extends Backend, K extends Kind>(tensors: ReadonlyArray<Tensor<B, K>>, dim = 0): Tensor<B, K> {
    for (const t of checkArray('stack', 'the tensors', tensors)) checkTensor('stack', 'each entry', t);
    const first = tensors[0];
    if (!first) throw new ArgumentError('stack needs at least one tensor', { op: 'stack' });
    for (const t of tensors) {
      if (t.rank !== first.rank || t.shape.some((v, i) => v !== first.shape[i])) {
        throw new ShapeError('stack needs tensors of one shape', { op: 'stack', shapes: tensors.map((x) => x.shape) });
      }
    }
    const d = normDim('stack', dim, first.rank, first.shape, 1);
    const parts: Array<Tensor<B, K>> = [];
    try {
      for (const t of tensors) parts.push(t.unsqueeze(d));
      return Tensor.cat(parts, d);
    } finally {
      for (const p of parts) p.dispose();
    }
  }
  /** torch.einsum: `Tensor.einsum('ij,jk->ik', a, b)`; the same function as the package's `einsum`. */
  static einsum<B extends Backend>(equation: string, ...operands: Array<Tensor<B, 'float'>>): Tensor<B, 'float'> {
    return einsum(equation, ...operands);
  }
  /** where(cond, x, y) as a function. */
  static where<B extends Backend, K extends Kind>(cond: Tensor<B, 'bool'>, x: Tensor<B, K>, y: Operand<B, K>): Tensor<B, K> {
    return checkTensor('where', 'x', x).where(cond, y);
  }
}

export type FloatTensor<B extends Backend = Backend> = Tensor<B, 'float'>;
export type IntTensor<B extends Backend = Backend> = Tensor<B, 'int'>;
export type BoolTensor<B extends Backend = Backend> = Tensor<B, 'bool'>;
