/**
 * torch.nn.functional.bilinear: y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o], with
 * torch's weight layout [out, in1, in2] (so a state dict loads as is). One matmul against the
 * weight viewed [in1, out * in2], then a product with x2 and a sum: no kernel of its own.
 */
import type { Backend } from '../../backends/backend.js';
import { ShapeError } from '../../errors.js';
import { tidy } from '../../memory/tidy.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkOptionalTensors, checkTensors } from '../check.js';
import { checkElements, checkFloat } from './args.js';

type F<B extends Backend> = Tensor<B, 'float'>;

/** x1 [..., in1], x2 [..., in2] (the same leading dims), weight [out, in1, in2], bias [out] -> [..., out]. */
export function bilinear<B extends Backend>(x1: F<B>, x2: F<B>, weight: F<B>, bias?: F<B>): F<B> {
  const op = 'bilinear';
  checkTensors(op, { input1: x1, input2: x2, weight });
  checkOptionalTensors(op, { bias });
  checkFloat(op, x1, x2, weight, bias);
  const shapes = [x1.shape, x2.shape, weight.shape, ...(bias ? [bias.shape] : [])];
  if (weight.rank !== 3) throw new ShapeError(`the weight must be [out, in1, in2], got rank ${weight.rank}`, { op, shapes });
  const [o, i1, i2] = weight.shape as [number, number, number];
  const lead = x1.shape.slice(0, -1);
  if (x1.rank < 1 || x2.rank !== x1.rank || x2.shape.slice(0, -1).some((d, i) => d !== lead[i]) || x1.shape[x1.rank - 1] !== i1 || x2.shape[x2.rank - 1] !== i2) {
    throw new ShapeError(`input1 and input2 must be [..., ${i1}] and [..., ${i2}] with the same leading dims (weight [${o}, ${i1}, ${i2}])`, { op, shapes });
  }
  if (bias && (bias.rank !== 1 || bias.shape[0] !== o)) throw new ShapeError(`the bias must be [${o}]`, { op, shapes });
  const rows = lead.reduce((a, v) => a * v, 1);
  checkElements(op, 'the intermediate x1 W', [rows, o, i2], shapes);
  return tidy(() => {
    const w = weight.permute([1, 0, 2]).reshape([i1, o * i2]);
    const left = x1.reshape([rows, i1]).matmul(w).reshape([rows, o, i2]);
    let y = left.mul(x2.reshape([rows, 1, i2])).sum(2);
    if (bias) y = y.add(bias);
    return y.reshape([...lead, o]);
  });
}
