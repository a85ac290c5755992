/** sort and topk over the primitive argsort / argtopk and gather (gradients come through gather), and roll's argument checks. */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, ShapeError } from '../errors.js';
import type { Kind } from '../ir/dtype.js';
import { normDim } from '../ir/shape.js';
import type { Tensor } from './tensor.js';

export function sortWithIndices<B extends Backend, K extends Kind>(x: Tensor<B, K>, dim: number, descending: boolean): { values: Tensor<B, K>; indices: Tensor<B, 'int'> } {
  const indices = x.argsort(dim, descending);
  if (x.rank === 0) return { values: x.clone(), indices };
  // Values are read at the sorted positions, so each gradient flows back to its element.
  return { values: x.gather(normDim('sort', dim, x.rank, x.shape), indices), indices };
}

/** topk's resolved dim, with k checked against it. */
export function topkDim(shape: readonly number[], k: number, dim: number): number {
  const d = normDim('topk', dim, shape.length, shape);
  const size = shape.length === 0 ? 1 : shape[d]!;
  if (!Number.isInteger(k) || k < 0) throw new ArgumentError(`k must be a non-negative integer, got ${k}`, { op: 'topk' });
  if (k > size) throw new ShapeError(`k = ${k} is larger than dim ${d} of size ${size}`, { op: 'topk', shapes: [shape], hint: `pick k <= ${size}` });
  return d;
}

export function topk<B extends Backend, K extends Kind>(x: Tensor<B, K>, k: number, dim: number, largest: boolean): { values: Tensor<B, K>; indices: Tensor<B, 'int'> } {
  const d = topkDim(x.shape, k, dim);
  if (x.rank === 0) {
    // A scalar is a line of one: k = 1 gives it back (index 0), k = 0 gives empty results.
    const line = x.reshape([1]);
    let r: { values: Tensor<B, K>; indices: Tensor<B, 'int'> };
    try {
      r = topk(line, k, 0, largest);
    } finally {
      // Also when the dtype is refused (a bool scalar from untyped code).
      line.dispose();
    }
    if (k === 0) return r;
    const values = r.values.reshape([]);
    const indices = r.indices.reshape([]);
    r.values.dispose();
    r.indices.dispose();
    return { values, indices };
  }
  const indices = x.argtopk(k, d, largest);
  return { values: x.gather(d, indices), indices };
}

/** Checked shifts and resolved dims of roll(shifts, dims). */
export function rollArgs(shape: readonly number[], shifts: number | readonly number[], dims: number | readonly number[]): { shifts: number[]; dims: number[] } {
  const s = typeof shifts === 'number' ? [shifts] : [...shifts];
  if (s.some((v) => !Number.isInteger(v))) throw new ArgumentError(`shifts [${s.join(', ')}] must be integers`, { op: 'roll' });
  const ds = typeof dims === 'number' ? [dims] : [...dims];
  if (ds.length !== s.length) throw new ArgumentError(`${s.length} shifts for ${ds.length} dims`, { op: 'roll', hint: 'give one shift per dim' });
  return { shifts: s, dims: ds.map((d) => normDim('roll', d, shape.length, shape)) };
}

/** roll without dims (torch): the flattened tensor rolled by one shift, then given its shape back. */
export function rollFlat<B extends Backend, K extends Kind>(x: Tensor<B, K>, shifts: number | readonly number[]): Tensor<B, K> {
  const s = typeof shifts === 'number' ? [shifts] : [...shifts];
  if (s.length !== 1) throw new ArgumentError(`without dims, roll takes one shift, got ${s.length}`, { op: 'roll', hint: 'pass dims to roll along several dims' });
  const flat = x.reshape([x.size]);
  const rolled = flat.roll(s, [0]);
  flat.dispose();
  const out = rolled.reshape(x.shape);
  rolled.dispose();
  return out;
}
