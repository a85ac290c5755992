/**
 * pad (constant, reflect, replicate, circular) and oneHot, built from sliceAssign, indexSelect
 * and scatterAdd, so their gradients and range checks come from those ops.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import type { DType, Kind, KindOf } from '../ir/dtype.js';
import { checkDType } from '../ir/validate.js';
import { fromData, full } from './creation.js';
import { asIndexCaller } from './index-scope.js';
import type { Tensor } from './tensor.js';

export type PadMode = 'constant' | 'reflect' | 'replicate' | 'circular';
const PAD_MODES: readonly PadMode[] = ['constant', 'reflect', 'replicate', 'circular'];

/** The source position of output position `i` (in [-left, n + right)) along a dim of size n. */
function sourceIndex(mode: Exclude<PadMode, 'constant'>, i: number, n: number): number {
  if (mode === 'replicate') return Math.min(Math.max(i, 0), n - 1);
  if (mode === 'circular') return ((i % n) + n) % n;
  // reflect: mirror about the edge elements, which are not repeated (torch / numpy 'reflect').
  if (i < 0) return -i;
  if (i >= n) return 2 * (n - 1) - i;
  return i;
}

/**
 * torch.nn.functional.pad: `pads` lists (before, after) pairs from the last dim backwards,
 * [lastBefore, lastAfter, secondLastBefore, ...]. Constant padding takes negative pads (crops).
 */
export function pad<B extends Backend, K extends Kind>(x: Tensor<B, K>, pads: readonly number[], mode: PadMode, value: number): Tensor<B, K> {
  if (!PAD_MODES.includes(mode)) throw new ArgumentError(`unknown padding mode '${String(mode)}'`, { op: 'pad', hint: `use one of: ${PAD_MODES.join(', ')}` });
  if (pads.length % 2 !== 0) throw new ArgumentError(`pads must come in (before, after) pairs, got ${pads.length} values`, { op: 'pad', hint: 'torch order: [lastBefore, lastAfter, secondLastBefore, secondLastAfter, ...]' });
  if (pads.length / 2 > x.rank) throw new ShapeError(`${pads.length / 2} padded dims for a tensor of rank ${x.rank}`, { op: 'pad', shapes: [x.shape], hint: 'one (before, after) pair per dim, from the last dim backwards' });
  if (pads.some((p) => !Number.isInteger(p))) throw new ArgumentError(`pads [${pads.join(', ')}] must be integers`, { op: 'pad' });
  const perDim = x.shape.map(() => [0, 0] as [number, number]);
  for (let k = 0; k < pads.length / 2; k++) perDim[x.rank - 1 - k] = [pads[2 * k]!, pads[2 * k + 1]!];
  return mode === 'constant' ? padConstant(x, perDim, value) : padIndexed(x, perDim, mode);
}

function padConstant<B extends Backend, K extends Kind>(x: Tensor<B, K>, perDim: ReadonlyArray<readonly [number, number]>, value: number): Tensor<B, K> {
  const shape = x.shape;
  const outShape = shape.map((n, d) => n + perDim[d]![0] + perDim[d]![1]);
  if (outShape.some((n) => n < 0)) {
    throw new ShapeError(`negative pads [${perDim.map(([a, b]) => `${a}, ${b}`).join('; ')}] crop more than the input has`, { op: 'pad', shapes: [shape, outShape] });
  }
  // Negative pads crop first; then the input goes into its place in a filled tensor.
  const crop = shape.map((n, d) => [Math.max(0, -perDim[d]![0]), n - Math.max(0, -perDim[d]![1])] as [number, number]);
  const cropped = crop.some(([s, e], d) => s !== 0 || e !== shape[d]) ? x.slice(crop.map(([s, e]) => [s, Math.max(s, e)] as [number, number])) : x;
  const dtype: DType = x.dtype;
  if (cropped.shape.some((n) => n === 0) || outShape.some((n) => n === 0)) {
    if (cropped !== x) cropped.dispose();
    return full(x.backend, outShape, value, { device: x.device, dtype }) as Tensor<B, K>;
  }
  const base = full(x.backend, outShape, value, { device: x.device, dtype }) as Tensor<B, K>;
  const at = perDim.map(([before], d) => [Math.max(0, before), Math.max(0, before) + cropped.shape[d]!] as [number, number]);
  const out = base.sliceAssign(at, cropped);
  base.dispose();
  if (cropped !== x) cropped.dispose();
  return out;
}

function padIndexed<B extends Backend, K extends Kind>(x: Tensor<B, K>, perDim: ReadonlyArray<readonly [number, number]>, mode: Exclude<PadMode, 'constant'>): Tensor<B, K> {
  const shape = x.shape;
  perDim.forEach(([before, after], d) => {
    const n = shape[d]!;
    if (before === 0 && after === 0) return;
    if (before < 0 || after < 0) throw new ArgumentError(`${mode} padding takes no negative pads, got (${before}, ${after}) for dim ${d}`, { op: 'pad', hint: "crop with slice, or use mode 'constant'" });
    const limit = mode === 'reflect' ? n - 1 : mode === 'circular' ? n : Infinity;
    if (n === 0 || before > limit || after > limit) {
      const rule = mode === 'reflect' ? 'smaller than' : mode === 'circular' ? 'at most' : 'on a dim of size > 0, got';
      throw new ShapeError(`${mode} padding (${before}, ${after}) of dim ${d} must be ${rule} its size ${n}`, { op: 'pad', shapes: [shape], hint: mode === 'replicate' ? 'an empty dim has nothing to repeat' : `pad dim ${d} by at most ${Math.max(0, limit)}` });
    }
  });
  let t: Tensor<B, K> = x;
  perDim.forEach(([before, after], d) => {
    if (before === 0 && after === 0) return;
    const n = shape[d]!;
    const idx = Int32Array.from({ length: n + before + after }, (_, i) => sourceIndex(mode, i - before, n));
    const index = fromData(x.backend, idx, { device: x.device });
    const next = t.indexSelect(d, index);
    index.dispose();
    if (t !== x) t.dispose();
    t = next;
  });
  return t === x ? x.clone() : t;
}

/** torch.nn.functional.one_hot: [..., numClasses] with a 1 at each index (int32 by default). Out-of-range indices fail the scatter. */
export function oneHot<B extends Backend, D extends DType = 'int32'>(indices: Tensor<B, 'int'>, numClasses: number, dtype?: D): Tensor<B, KindOf<D>> {
  if (indices.dtype !== 'int32') throw new DTypeError('indices must be int32', { op: 'oneHot', dtypes: [indices.dtype], hint: 'cast with .cast("int32")' });
  if (!Number.isInteger(numClasses) || numClasses <= 0) throw new ArgumentError(`numClasses must be a positive integer, got ${numClasses}`, { op: 'oneHot' });
  const dt: DType = dtype === undefined ? 'int32' : checkDType('oneHot', dtype);
  if (dt === 'bool') throw new DTypeError('oneHot makes int32, float32 or float16 tensors', { op: 'oneHot', dtypes: [dt], hint: 'compare the result with 1 for a mask' });
  const shape = indices.shape;
  // The intermediates go whatever throws (a disposed `indices`, a size past the limit).
  const made: Array<Tensor<B, Kind>> = [];
  try {
    const at = indices.unsqueeze(-1);
    made.push(at);
    const zeros = full(indices.backend, [...shape, numClasses], 0, { device: indices.device, dtype: dt });
    made.push(zeros);
    const ones = full(indices.backend, [...shape, 1], 1, { device: indices.device, dtype: dt });
    made.push(ones);
    // scatterAdd checks every index against [0, numClasses) and fails the op otherwise, naming oneHot.
    return asIndexCaller({ name: 'oneHot', of: 'classes' }, () => zeros.scatterAdd(-1, at, ones)) as Tensor<B, KindOf<D>>;
  } finally {
    for (const t of made) t.dispose();
  }
}
