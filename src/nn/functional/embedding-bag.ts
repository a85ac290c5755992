/**
 * torch.nn.functional.embedding_bag: the rows a bag of indices names, reduced per bag (sum, mean
 * or max) without materialising the per-index rows' bags one by one. Bag membership is a [bags, n]
 * mask built on the device from the offsets (no read back), so sum and mean are one matmul and max
 * a masked maximum; the table's gradient comes from the row gather's own rule.
 */
import type { Backend } from '../../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../errors.js';
import { checkBoolean, checkOptions, show } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import { arange, fromData } from '../../tensor/creation.js';
import { asIndexCaller } from '../../tensor/index-scope.js';
import { Tensor } from '../../tensor/tensor.js';
import { checkOptionalTensors, checkTensors } from '../check.js';
import { checkElements, checkFloat } from './args.js';

type F<B extends Backend> = Tensor<B, 'float'>;
type I<B extends Backend> = Tensor<B, 'int'>;

export type EmbeddingBagMode = 'sum' | 'mean' | 'max';

export interface EmbeddingBagOptions<B extends Backend> {
  /** With 1-D indices: where each bag starts (int32, [bags], or [bags + 1] with includeLastOffset). Not given with 2-D indices (each row a bag). */
  offsets?: I<B> | undefined;
  /** Default 'mean' (torch's). */
  mode?: EmbeddingBagMode;
  /** Weights of each index ('sum' only, as torch), the indices' shape. */
  perSampleWeights?: F<B> | undefined;
  /** offsets has one entry more, the end of the last bag (torch's include_last_offset). Default false. */
  includeLastOffset?: boolean;
  /** Indices equal to this are left out of their bag (and out of mean's count). Negative counts from the table's end. */
  paddingIdx?: number;
}

/** input [n] with offsets, or [bags, L]; weight [num, dim] -> [bags, dim]. An empty bag gives zeros. */
export function embeddingBag<B extends Backend>(input: I<B>, weight: F<B>, options: EmbeddingBagOptions<B> = {}): F<B> {
  const op = 'embeddingBag';
  checkTensors(op, { input, weight });
  checkOptions(op, options);
  checkOptionalTensors(op, { offsets: options.offsets, perSampleWeights: options.perSampleWeights });
  checkFloat(op, weight, options.perSampleWeights);
  const mode = options.mode ?? 'mean';
  if (mode !== 'sum' && mode !== 'mean' && mode !== 'max') throw new ArgumentError(`mode must be 'sum', 'mean' or 'max', got ${show(mode)}`, { op });
  const includeLast = options.includeLastOffset ?? false;
  checkBoolean(op, 'includeLastOffset', includeLast);
  const { offsets, perSampleWeights: psw } = options;
  const shapes = [input.shape, weight.shape, ...(offsets ? [offsets.shape] : [])];
  if (input.dtype !== 'int32') throw new DTypeError(`the indices must be int32, got ${input.dtype}`, { op, dtypes: [input.dtype], hint: "cast them: indices.cast('int32')" });
  if (weight.rank !== 2) throw new ShapeError(`the weight must be [num, dim], got rank ${weight.rank}`, { op, shapes });
  const [num, dim] = weight.shape as [number, number];
  if (input.rank === 2) {
    if (offsets) throw new ArgumentError('offsets must not be given with 2-D indices (each row is a bag)', { op });
  } else if (input.rank === 1) {
    if (!offsets) throw new ArgumentError('1-D indices need offsets (where each bag starts)', { op, hint: 'or give the indices as [bags, L]' });
    if (offsets.dtype !== 'int32') throw new DTypeError(`offsets must be int32, got ${offsets.dtype}`, { op, dtypes: [offsets.dtype], hint: "cast them: offsets.cast('int32')" });
    if (offsets.rank !== 1) throw new ShapeError(`offsets must be 1-D, got rank ${offsets.rank}`, { op, shapes });
    if (includeLast && offsets.shape[0]! < 1) throw new ShapeError('with includeLastOffset, offsets needs at least one entry (the end)', { op, shapes });
  } else {
    throw new ShapeError(`the indices must be [n] (with offsets) or [bags, L], got rank ${input.rank}`, { op, shapes });
  }
  if (psw) {
    if (mode !== 'sum') throw new ArgumentError(`perSampleWeights work with mode 'sum' only (as torch), got '${mode}'`, { op });
    if (psw.rank !== input.rank || psw.shape.some((d, i) => d !== input.shape[i])) throw new ShapeError(`perSampleWeights must have the indices' shape [${input.shape.join(', ')}]`, { op, shapes: [...shapes, psw.shape] });
  }
  const pad = options.paddingIdx;
  if (pad !== undefined && !(typeof pad === 'number' && Number.isSafeInteger(pad) && pad >= -num && pad < num)) {
    throw new ArgumentError(`paddingIdx must be an integer in [${-num}, ${num}), got ${show(pad)}`, { op });
  }
  const n = input.size;
  const bags = input.rank === 2 ? input.shape[0]! : offsets!.shape[0]! - (includeLast ? 1 : 0);
  checkElements(op, 'the bag mask', [bags, n, ...(mode === 'max' ? [dim] : [])], shapes);
  // An index outside the table fails the row lookup naming embeddingBag.
  return asIndexCaller({ name: op, of: 'embeddings' }, () =>
    tidy(() => {
      const idx = input.reshape([n]);
      // Each bag's [start, end) in the flat indices.
      let starts: I<B>;
      let ends: I<B>;
      if (input.rank === 2) {
        const l = input.shape[1]!;
        starts = arange(input.backend, 0, bags * l, l, { device: input.device }).reshape([bags, 1]);
        ends = starts.add(l);
      } else {
        const o = offsets!;
        starts = o.slice([[0, bags]]).reshape([bags, 1]);
        const rest = o.slice([[1, o.shape[0]!]]);
        ends = (includeLast ? rest : Tensor.cat([rest, fromData(input.backend, Int32Array.of(n), { device: input.device })], 0)).reshape([bags, 1]);
      }
      const position = arange(input.backend, n, undefined, 1, { device: input.device }).reshape([1, n]);
      let member = position.greaterEqual(starts).logicalAnd(position.lower(ends));
      if (pad !== undefined) member = member.logicalAnd(idx.notEqual(pad < 0 ? pad + num : pad).reshape([1, n]));
      let rows = weight.indexSelect(0, idx);
      if (psw) rows = rows.mul(psw.reshape([n, 1]));
      const m = member.cast(weight.dtype);
      if (mode === 'sum') return m.matmul(rows);
      const count = m.sum(1, true);
      if (mode === 'mean') return m.matmul(rows).div(count.clampMin(1));
      // max: each bag's rows, the others -Infinity; the gradient goes to the first maximum. An empty bag gives 0.
      const masked = rows.unsqueeze(0).expand([bags, n, dim]).where(member.unsqueeze(2), -Infinity);
      return masked.maxWithIndices(1).values.where(count.greater(0), 0);
    }),
  );
}
