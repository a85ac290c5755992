/**
 * Shape and dtype rules, one per op. The tensor API calls `inferOutputs` when an op is called,
 * so errors are thrown at the call site and output shapes are known at once. A backend that
 * receives a foreign record (router, remote) can call it again to validate.
 */
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import { coerce, isFloat, kindOf, type DType } from './dtype.js';
import { BINARY, UNARY, isBinaryOp, isParamUnaryOp, isScalarOp, isUnaryOp, scalarBase } from './elementwise.js';
import { OP_KINDS, type KindLimitedOp } from './kinds.js';
import { isFusableOp, type FusedAttrs } from './fused.js';
import { REDUCE_OPS, numel, type OpAttrs, type OpName, type ReduceOp } from './ops.js';
import { broadcastShapes, checkSize, resolveReshape, sameShape, sliceShape } from './shape.js';

/** An op with its attributes, discriminated by `op` (a record without ids and metas). */
export type OpCall = { [K in OpName]: { readonly op: K; readonly attrs: OpAttrs[K] } }[OpName];

export interface Meta {
  readonly shape: readonly number[];
  readonly dtype: DType;
}

function kindsError(op: string, dtypes: DType[], allowed: readonly string[]): DTypeError {
  return new DTypeError(`dtype ${dtypes.join(', ')} is not supported (accepts ${allowed.join(', ')})`, {
    op,
    dtypes,
    hint: allowed.includes('float') ? 'cast the input with .cast("float32")' : `cast the input to one of: ${allowed.join(', ')}`,
  });
}

/** The kinds table (src/ir/kinds.ts) decides: the Tensor methods' types come from it too. */
function requireKinds(op: KindLimitedOp, dtypes: DType[]): void {
  const kinds: readonly string[] = OP_KINDS[op];
  if (!dtypes.every((d) => kinds.includes(kindOf(d)))) throw kindsError(op, dtypes, OP_KINDS[op]);
}

function requireSameDType(op: string, metas: readonly Meta[]): DType {
  const d = metas[0]!.dtype;
  let same = true;
  for (const m of metas) same &&= m.dtype === d;
  if (!same) {
    throw new DTypeError('inputs have different dtypes', {
      op,
      dtypes: metas.map((m) => m.dtype),
      hint: 'Switchyard does not promote dtypes silently: cast one input with .cast(...)',
    });
  }
  return d;
}

function isReduceCall(call: OpCall): call is Extract<OpCall, { op: ReduceOp }> {
  return (REDUCE_OPS as readonly string[]).includes(call.op);
}

/** A dim already resolved by the tensor API (0 <= dim < rank) that a foreign record might not respect. */
function checkDim(op: string, dim: number, shape: readonly number[]): void {
  if (!Number.isInteger(dim) || dim < 0 || dim >= shape.length) throw new ShapeError(`dim ${dim} is out of range for a tensor of rank ${shape.length}`, { op, shapes: [shape] });
}

type Family = 'unary' | 'binary' | 'scalar' | 'other';
/** Each op's family, found once (the checks are string work, and this runs for every op). */
const FAMILY = new Map<string, Family>();
function familyOf(op: string): Family {
  let f = FAMILY.get(op);
  if (f === undefined) {
    f = isUnaryOp(op) ? 'unary' : isBinaryOp(op) ? 'binary' : isScalarOp(op) ? 'scalar' : 'other';
    FAMILY.set(op, f);
  }
  return f;
}

/** Output metas of an op, checked at the call; none may hold more elements than a tensor can. */
export function inferOutputs(call: OpCall, inputs: readonly Meta[]): Meta[] {
  const outputs = inferMetas(call, inputs);
  for (const m of outputs) checkSize(call.op, m.shape, m.dtype);
  return outputs;
}

function inferMetas(call: OpCall, inputs: readonly Meta[]): Meta[] {
  const op = call.op;
  const a = inputs[0];
  const family = familyOf(op);
  if (family === 'unary' && isUnaryOp(op)) {
    const spec = UNARY[op];
    if (!(spec.kinds as readonly string[]).includes(kindOf(a!.dtype))) throw kindsError(op, [a!.dtype], spec.kinds);
    return [{ shape: a!.shape, dtype: spec.out === 'bool' ? 'bool' : a!.dtype }];
  }
  if (isParamUnaryOp(op)) {
    if (!isFloat(a!.dtype)) throw kindsError(op, [a!.dtype], ['float']);
    return [{ shape: a!.shape, dtype: a!.dtype }];
  }
  if (family === 'binary' && isBinaryOp(op)) {
    const spec = BINARY[op];
    const d = requireSameDType(op, inputs);
    if (!(spec.kinds as readonly string[]).includes(kindOf(d))) throw kindsError(op, [d, d], spec.kinds);
    return [{ shape: broadcastShapes(op, a!.shape, inputs[1]!.shape), dtype: spec.out === 'bool' ? 'bool' : d }];
  }
  if (family === 'scalar' && isScalarOp(op)) {
    const spec = BINARY[scalarBase(op)];
    if (!(spec.kinds as readonly string[]).includes(kindOf(a!.dtype))) throw kindsError(op, [a!.dtype], spec.kinds);
    return [{ shape: a!.shape, dtype: spec.out === 'bool' ? 'bool' : a!.dtype }];
  }
  if (isReduceCall(call)) {
    const { dim, keepDims } = call.attrs;
    requireKinds(call.op, [a!.dtype]);
    const shape = a!.shape;
    const empty = dim === null ? numel(shape) === 0 : shape[dim] === 0;
    if (empty && (op === 'max' || op === 'min' || op === 'argmax' || op === 'argmin')) {
      throw new ShapeError('cannot reduce over an empty dim: the op has no identity', { op, shapes: [shape], hint: 'check for empty inputs first' });
    }
    const outShape = dim === null ? (keepDims ? shape.map(() => 1) : []) : keepDims ? shape.map((d, i) => (i === dim ? 1 : d)) : shape.filter((_, i) => i !== dim);
    const dtype = op === 'argmax' || op === 'argmin' ? 'int32' : a!.dtype;
    return [{ shape: outShape, dtype }];
  }
  switch (call.op) {
    case 'fromData':
    case 'full':
    case 'arange':
    case 'random':
      throw new ArgumentError('creation ops have no inputs to infer from', { op });
    case 'clamp': {
      requireKinds(call.op, [a!.dtype]);
      // min > max is allowed: every element becomes max (torch).
      return [{ shape: a!.shape, dtype: a!.dtype }];
    }
    case 'where': {
      const [c, x, y] = inputs as [Meta, Meta, Meta];
      if (c.dtype !== 'bool') throw new DTypeError('the condition must be bool', { op, dtypes: [c.dtype], hint: 'build it with a comparison, or .cast("bool")' });
      const d = requireSameDType(op, [x, y]);
      return [{ shape: broadcastShapes(op, c.shape, x.shape, y.shape), dtype: d }];
    }
    case 'maskFill': {
      const [m, x] = inputs as [Meta, Meta];
      if (m.dtype !== 'bool') throw new DTypeError('the mask must be bool', { op, dtypes: [m.dtype, x.dtype], hint: 'build it with a comparison, or .cast("bool")' });
      // The output is x's shape: a mask that would widen it is refused (torch's masked_fill).
      if (!sameShape(broadcastShapes(op, m.shape, x.shape), x.shape)) throw new ShapeError(`the mask [${m.shape.join(', ')}] does not broadcast to the tensor's shape [${x.shape.join(', ')}]`, { op, shapes: [x.shape, m.shape] });
      // A foreign record's value must already be one x's dtype holds: kernels store it as given.
      const { value } = call.attrs;
      if (typeof value !== 'number') throw new ArgumentError(`value must be a number, got ${typeof value}`, { op });
      if (!Object.is(coerce(x.dtype, value), value)) throw new DTypeError(`value ${value} is not a ${x.dtype} value`, { op, dtypes: [m.dtype, x.dtype], hint: 'Tensor.maskFill coerces the value to the tensor\'s dtype' });
      return [{ shape: x.shape, dtype: x.dtype }];
    }
    case 'cast':
      return [{ shape: a!.shape, dtype: call.attrs.dtype }];
    case 'reshape':
      return [{ shape: resolveReshape(op, a!.shape, call.attrs.shape), dtype: a!.dtype }];
    case 'permute': {
      const { dims } = call.attrs;
      const rank = a!.shape.length;
      const seen = new Set(dims);
      if (dims.length !== rank || seen.size !== rank || dims.some((d) => d < 0 || d >= rank || !Number.isInteger(d))) {
        throw new ShapeError(`dims [${dims.join(', ')}] are not a permutation of 0..${rank - 1}`, { op, shapes: [a!.shape] });
      }
      return [{ shape: dims.map((d) => a!.shape[d]!), dtype: a!.dtype }];
    }
    case 'slice': {
      const { ranges } = call.attrs;
      if (ranges.length !== a!.shape.length) throw new ShapeError('one range per dim is required', { op, shapes: [a!.shape] });
      return [{ shape: sliceShape(ranges), dtype: a!.dtype }];
    }
    case 'expand': {
      const { shape } = call.attrs;
      const src = a!.shape;
      if (shape.length < src.length) throw new ShapeError('cannot expand to a lower rank', { op, shapes: [src, shape] });
      const off = shape.length - src.length;
      const out = shape.map((d, i) => {
        const s = i < off ? 1 : src[i - off]!;
        const t = d === -1 ? s : d;
        if (i < off && d === -1) throw new ShapeError('-1 is not allowed for new leading dims', { op, shapes: [src, shape] });
        if (s !== 1 && s !== t) throw new ShapeError(`dim ${i} of size ${s} cannot expand to ${t}`, { op, shapes: [src, shape], hint: 'only dims of size 1 expand' });
        return t;
      });
      return [{ shape: out, dtype: a!.dtype }];
    }
    case 'copy':
      return [{ shape: a!.shape, dtype: a!.dtype }];
    case 'cat': {
      const { dim } = call.attrs;
      if (inputs.length === 0) throw new ArgumentError('needs at least one tensor', { op });
      const d = requireSameDType(op, inputs);
      const first = a!.shape;
      let size = 0;
      for (const m of inputs) {
        if (m.shape.length !== first.length || m.shape.some((v, i) => i !== dim && v !== first[i])) {
          throw new ShapeError(`all dims but dim ${dim} must match`, { op, shapes: inputs.map((x) => x.shape) });
        }
        size += m.shape[dim]!;
      }
      return [{ shape: first.map((v, i) => (i === dim ? size : v)), dtype: d }];
    }
    case 'sliceAssign': {
      const { ranges } = call.attrs;
      const [x, v] = inputs as [Meta, Meta];
      requireSameDType(op, [x, v]);
      const s = sliceShape(ranges);
      if (!sameShape(s, v.shape)) throw new ShapeError(`the value's shape must equal the slice's shape [${s.join(', ')}]`, { op, shapes: [x.shape, v.shape] });
      return [{ shape: x.shape, dtype: x.dtype }];
    }
    case 'gather': {
      const { dim } = call.attrs;
      const [x, idx] = inputs as [Meta, Meta];
      if (idx.dtype !== 'int32') throw new DTypeError('indices must be int32', { op, dtypes: [idx.dtype], hint: 'cast the indices with .cast("int32")' });
      if (idx.shape.length !== x.shape.length || idx.shape.some((v, i) => i !== dim && v > x.shape[i]!)) {
        throw new ShapeError('indices must have the input rank, and no dim larger than the input (except dim)', { op, shapes: [x.shape, idx.shape] });
      }
      return [{ shape: idx.shape, dtype: x.dtype }];
    }
    case 'scatterAdd': {
      const { dim } = call.attrs;
      const [x, idx, src] = inputs as [Meta, Meta, Meta];
      if (idx.dtype !== 'int32') throw new DTypeError('indices must be int32', { op, dtypes: [idx.dtype], hint: 'cast the indices with .cast("int32")' });
      requireSameDType(op, [x, src]);
      requireKinds(call.op, [x.dtype]);
      if (!sameShape(idx.shape, src.shape) || idx.shape.length !== x.shape.length || idx.shape.some((v, i) => i !== dim && v > x.shape[i]!)) {
        throw new ShapeError('indices and values must have one shape, of the input rank, no dim larger than the input (except dim)', { op, shapes: [x.shape, idx.shape, src.shape] });
      }
      return [{ shape: x.shape, dtype: x.dtype }];
    }
    case 'indexSelect': {
      const { dim } = call.attrs;
      const [x, idx] = inputs as [Meta, Meta];
      if (idx.dtype !== 'int32') throw new DTypeError('indices must be int32', { op, dtypes: [idx.dtype], hint: 'cast the indices with .cast("int32")' });
      if (idx.shape.length !== 1) throw new ShapeError('indices must be 1-D', { op, shapes: [x.shape, idx.shape] });
      return [{ shape: x.shape.map((v, i) => (i === dim ? idx.shape[0]! : v)), dtype: x.dtype }];
    }
    case 'softmax':
    case 'logSoftmax':
      requireKinds(call.op, [a!.dtype]);
      return [{ shape: a!.shape, dtype: a!.dtype }];
    case 'matmul': {
      const [x, y] = inputs as [Meta, Meta];
      requireSameDType(op, [x, y]);
      requireKinds(call.op, [x.dtype, y.dtype]);
      if (x.shape.length < 2 || y.shape.length < 2) throw new ShapeError('the IR matmul takes rank >= 2 inputs', { op, shapes: [x.shape, y.shape] });
      const m = x.shape[x.shape.length - 2]!;
      const k = x.shape[x.shape.length - 1]!;
      const k2 = y.shape[y.shape.length - 2]!;
      const n = y.shape[y.shape.length - 1]!;
      if (k !== k2) {
        throw new ShapeError(`inner dims differ (${k} vs ${k2})`, { op, shapes: [x.shape, y.shape], hint: 'lhs [..., m, k] needs rhs [..., k, n]; transpose one side?' });
      }
      const batch = broadcastShapes(op, x.shape.slice(0, -2), y.shape.slice(0, -2));
      return [{ shape: [...batch, m, n], dtype: x.dtype }];
    }
    case 'transfer':
      return [{ shape: a!.shape, dtype: a!.dtype }];
    case 'var': {
      const { dim, keepDims, correction } = call.attrs;
      if (!isFloat(a!.dtype)) throw kindsError(op, [a!.dtype], ['float']);
      if (dim !== null) checkDim(op, dim, a!.shape);
      if (!Number.isFinite(correction)) throw new ArgumentError(`correction must be a finite number, got ${correction}`, { op });
      const shape = a!.shape;
      return [{ shape: dim === null ? (keepDims ? shape.map(() => 1) : []) : keepDims ? shape.map((d, i) => (i === dim ? 1 : d)) : shape.filter((_, i) => i !== dim), dtype: a!.dtype }];
    }
    case 'cumsum':
    case 'cumprod': {
      if (kindOf(a!.dtype) === 'bool') throw kindsError(op, [a!.dtype], ['float', 'int']);
      checkDim(op, call.attrs.dim, a!.shape);
      return [{ shape: a!.shape, dtype: a!.dtype }];
    }
    case 'flip': {
      const { dims } = call.attrs;
      for (const d of dims) checkDim(op, d, a!.shape);
      if (new Set(dims).size !== dims.length) throw new ShapeError(`dims [${dims.join(', ')}] list a dim twice`, { op, shapes: [a!.shape], hint: 'list each dim once' });
      return [{ shape: a!.shape, dtype: a!.dtype }];
    }
    case 'roll': {
      const { shifts, dims } = call.attrs;
      if (shifts.length !== dims.length) throw new ArgumentError(`${shifts.length} shifts for ${dims.length} dims`, { op, hint: 'give one shift per dim' });
      for (const d of dims) checkDim(op, d, a!.shape);
      if (shifts.some((v) => !Number.isInteger(v))) throw new ArgumentError(`shifts [${shifts.join(', ')}] must be integers`, { op });
      return [{ shape: a!.shape, dtype: a!.dtype }];
    }
    case 'tril':
    case 'triu': {
      if (a!.shape.length < 2) throw new ShapeError(`needs a tensor of rank >= 2, got rank ${a!.shape.length}`, { op, shapes: [a!.shape], hint: 'the last two dims are the matrix' });
      if (!Number.isInteger(call.attrs.diagonal)) throw new ArgumentError(`diagonal must be an integer, got ${call.attrs.diagonal}`, { op });
      return [{ shape: a!.shape, dtype: a!.dtype }];
    }
    case 'argtopk': {
      const { dim, k } = call.attrs;
      if (kindOf(a!.dtype) === 'bool') throw kindsError(op, [a!.dtype], ['float', 'int']);
      checkDim(op, dim, a!.shape);
      const size = a!.shape[dim]!;
      if (!Number.isInteger(k) || k < 0 || k > size) throw new ShapeError(`k = ${k} is not in [0, ${size}] for dim ${dim}`, { op, shapes: [a!.shape] });
      return [{ shape: a!.shape.map((d, i) => (i === dim ? k : d)), dtype: 'int32' }];
    }
    case 'argsort': {
      if (kindOf(a!.dtype) === 'bool') throw kindsError(op, [a!.dtype], ['float', 'int']);
      checkDim(op, call.attrs.dim, a!.shape);
      return [{ shape: a!.shape, dtype: 'int32' }];
    }
    case 'fused':
      return inferFused(call.attrs, inputs);
  }
  throw new ArgumentError(`unknown op '${String(op)}'`, { op: String(op) });
}

/**
 * A fused program's outputs, checked step by step with each op's own rule: every step has the
 * program's shape (the inputs' broadcast) and the dtype it declares.
 */
function inferFused(attrs: FusedAttrs, inputs: readonly Meta[]): Meta[] {
  const op = 'fused';
  if (inputs.length === 0 || attrs.steps.length === 0) throw new ArgumentError('a fused program needs inputs and steps', { op });
  const shape = broadcastShapes(op, ...inputs.map((m) => m.shape));
  const metas: Meta[] = [];
  attrs.steps.forEach((st, s) => {
    if (!isFusableOp(st.op)) throw new ArgumentError(`step ${s}: '${String(st.op)}' is not an elementwise op`, { op });
    const args = st.args.map((a) => {
      const m = 'input' in a ? inputs[a.input] : a.step < s ? metas[a.step] : undefined;
      if (m === undefined) throw new ArgumentError(`step ${s} (${st.op}) reads ${JSON.stringify(a)}, which is not an input or an earlier step`, { op });
      return m;
    });
    // A constant step takes the program's shape (it is broadcast like a parameter).
    const [m] = st.op === 'full' ? [{ shape, dtype: st.dtype }] : inferMetas(st, args);
    if (!sameShape(m!.shape, shape) || m!.dtype !== st.dtype) {
      throw new ArgumentError(`step ${s} (${st.op}) gives ${m!.dtype} [${m!.shape.join(', ')}], the program declares ${st.dtype} [${shape.join(', ')}]`, { op });
    }
    metas.push(m!);
  });
  return attrs.outputs.map((s) => {
    const m = metas[s];
    if (m === undefined) throw new ArgumentError(`output step ${s} does not exist`, { op });
    return m;
  });
}
