/** Gradients of the scans and the reordering copies (argsort's and argtopk's int32 results cut the graph). */
import { ShapeError } from '../../errors.js';
import { ones } from '../../tensor/creation.js';
import { Tensor } from '../../tensor/tensor.js';
import { NONE, type FloatT, type GradEntry } from './rule.js';

/** Elements cumprod's createGraph gradient may build in one table (as scatterReduce's grids). */
const TABLE_BUDGET = 2 ** 27;

type ReorderOp = 'cumsum' | 'cumprod' | 'flip' | 'roll' | 'tril' | 'triu' | 'argsort' | 'argtopk';

/**
 * cumprod's gradient without a division, for createGraph (torch's O(n^2) form):
 * dx_k = prod_{i < k} x_i * sum_{j >= k} dy_j prod_{k < i <= j} x_i, on [n, n] tables per line.
 */
function cumprodGradByProducts(x: FloatT, dy: FloatT, dim: number): FloatT {
  const n = x.shape[dim]!;
  if (n <= 1) return dy;
  // The tables are n times the input: refused past a budget, with a typed error, rather than
  // allocated into an out-of-memory failure the process may not survive.
  const cells = x.size * n;
  if (cells > TABLE_BUDGET) {
    throw new ShapeError(`cumprod's gradient with createGraph builds [${[...x.shape.filter((_, i) => i !== dim), n, n].join(', ')}] tables (${cells} elements), past the budget of ${TABLE_BUDGET}`, {
      op: 'cumprod',
      shapes: [x.shape],
      hint: 'shorten the scanned dim (split it and chain the partial products), or differentiate cumprod once (without createGraph)',
    });
  }
  const last = x.rank - 1;
  const perm = x.shape.map((_, i) => i).filter((i) => i !== dim);
  perm.push(dim);
  const inverse = new Array<number>(perm.length);
  perm.forEach((p, i) => (inverse[p] = i));
  // table[..., k, i] = x_i
  const xs = x.permute(perm).unsqueeze(last);
  const table = xs.expand([...xs.shape.slice(0, last), n, n]);
  const square = ones(x.backend, [n, n], { device: x.device, dtype: x.dtype });
  const after = table.maskFill(square.triu(1).equal(0), 1); // x_i for i > k, else 1
  const before = table.maskFill(square.tril(-1).equal(0), 1); // x_i for i < k, else 1
  const segments = after.cumprod(last + 1).triu(0); // prod_{k < i <= j} x_i for j >= k, else 0
  const reach = segments.mul(dy.permute(perm).unsqueeze(last)).sum(last + 1);
  return before.prod(last + 1).mul(reach).permute(inverse);
}

/** sum_{j >= i} t_j along `dim`. */
function reverseCumsum(t: FloatT, dim: number): FloatT {
  return t.flip(dim).cumsum(dim).flip(dim);
}

export const REORDER_GRADS: { readonly [N in ReorderOp]: GradEntry<N> } = {
  // Each element reaches every later output.
  cumsum: { backward: (c) => [reverseCumsum(c.dy, c.attrs.dim)] },
  // d y_j / d x_i = y_j / x_i for j >= i while no zero precedes. At the first zero z of a line:
  // prod_{i < z} x_i * sum_{j >= z} dy_j prod_{z < i <= j} x_i, the prefix factored out of the sum
  // as torch does (inside it, an infinite prefix would meet dy of both signs: inf - inf); after z
  // every gradient is 0 (torch's rule).
  cumprod: {
    saveInputs: [0],
    saveOutput: true,
    backward: (c) => {
      const d = c.attrs.dim;
      const x = c.input(0);
      const n = x.shape[d]!;
      // A line of one (or none) is the identity.
      if (n <= 1) return [c.dy];
      if (c.createGraph) return [cumprodGradByProducts(x, c.dy, d)];
      const y = c.output();
      const isZero = x.equal(0);
      const zerosSoFar = isZero.cast(x.dtype).cumsum(d);
      const beforeFirst = zerosSoFar.equal(0);
      const first = isZero.logicalAnd(zerosSoFar.equal(1));
      const plain = reverseCumsum(c.dy.mul(y), d).div(x);
      // prod_{z < i <= j} x_i: the cumprod with every element up to the first zero set to 1.
      const after = x.maskFill(beforeFirst.logicalOr(first), 1).cumprod(d);
      // prod_{i < z} x_i: the output shifted one place along the line (1 at its start).
      const prefix = Tensor.cat([ones(x.backend, x.shape.map((s, i) => (i === d ? 1 : s)), { device: x.device, dtype: x.dtype }), y.narrow(d, 0, n - 1)], d);
      const others = prefix.mul(reverseCumsum(c.dy.mul(after), d));
      return [plain.where(beforeFirst, others.where(first, 0))];
    },
  },
  flip: { backward: (c) => [c.dy.flip(c.attrs.dims)] },
  roll: { backward: (c) => [c.dy.roll(c.attrs.shifts.map((s) => -s), c.attrs.dims)] },
  tril: { backward: (c) => [c.dy.tril(c.attrs.diagonal)] },
  triu: { backward: (c) => [c.dy.triu(c.attrs.diagonal)] },
  argsort: NONE,
  argtopk: NONE,
};
