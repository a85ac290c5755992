/**
 * torch.nn.functional.pixel_shuffle / pixel_unshuffle: channels to and from r x r blocks of
 * pixels, as one reshape / permute / reshape (a copy; gradients from the views).
 */
import type { Backend } from '../../backends/backend.js';
import { ShapeError } from '../../errors.js';
import { checkInteger } from '../../ir/validate.js';
import { tidy } from '../../memory/tidy.js';
import type { Kind } from '../../ir/dtype.js';
import type { Tensor } from '../../tensor/tensor.js';
import { checkTensors } from '../check.js';

function checkInput<B extends Backend>(op: string, x: Tensor<B, Kind>, factor: unknown, name: string): number {
  checkTensors(op, { input: x });
  const r = checkInteger(op, name, factor, 1);
  if (x.rank < 3) throw new ShapeError(`the input must be [*, C, H, W] (rank 3 or more), got rank ${x.rank}`, { op, shapes: [x.shape] });
  x.live(op);
  return r;
}

/** [*, C r^2, H, W] -> [*, C, H r, W r]: out[c][h r + i][w r + j] = x[c r^2 + i r + j][h][w] (torch.nn.functional.pixel_shuffle). Any dtype. */
export function pixelShuffle<B extends Backend, K extends Kind>(x: Tensor<B, K>, upscaleFactor: number): Tensor<B, K> {
  const op = 'pixelShuffle';
  const r = checkInput(op, x, upscaleFactor, 'upscaleFactor');
  const lead = x.shape.slice(0, -3);
  const [c, h, w] = x.shape.slice(-3) as [number, number, number];
  if (c % (r * r) !== 0) throw new ShapeError(`the channels (${c}) must be divisible by upscaleFactor^2 = ${r * r}`, { op, shapes: [x.shape] });
  const oc = c / (r * r);
  const n = lead.length;
  return tidy(
    () =>
      x
        .reshape([...lead, oc, r, r, h, w])
        .permute([...lead.map((_, i) => i), n, n + 3, n + 1, n + 4, n + 2])
        .reshape([...lead, oc, h * r, w * r]),
    x.backend.runtime,
  );
}

/** [*, C, H r, W r] -> [*, C r^2, H, W], the inverse of pixelShuffle (torch.nn.functional.pixel_unshuffle). Any dtype. */
export function pixelUnshuffle<B extends Backend, K extends Kind>(x: Tensor<B, K>, downscaleFactor: number): Tensor<B, K> {
  const op = 'pixelUnshuffle';
  const r = checkInput(op, x, downscaleFactor, 'downscaleFactor');
  const lead = x.shape.slice(0, -3);
  const [c, h, w] = x.shape.slice(-3) as [number, number, number];
  if (h % r !== 0 || w % r !== 0) throw new ShapeError(`the height (${h}) and width (${w}) must be divisible by downscaleFactor = ${r}`, { op, shapes: [x.shape] });
  const n = lead.length;
  return tidy(
    () =>
      x
        .reshape([...lead, c, h / r, r, w / r, r])
        .permute([...lead.map((_, i) => i), n, n + 2, n + 4, n + 1, n + 3])
        .reshape([...lead, c * r * r, h / r, w / r]),
    x.backend.runtime,
  );
}

/**
 * [N, C, *] -> [N, C, *] with the channels of g groups interleaved: out[c] = x[(c % g) (C / g) + c / g]
 * (torch.nn.functional.channel_shuffle, ShuffleNet's shuffle). Rank 3 or more, as torch. Any dtype.
 */
export function channelShuffle<B extends Backend, K extends Kind>(x: Tensor<B, K>, groups: number): Tensor<B, K> {
  const op = 'channelShuffle';
  checkTensors(op, { input: x });
  const g = checkInteger(op, 'groups', groups, 1);
  if (x.rank < 3) throw new ShapeError(`the input must be [N, C, *] (rank 3 or more, as torch), got rank ${x.rank}`, { op, shapes: [x.shape], hint: 'add a batch dim with unsqueeze(0) or a spatial one with unsqueeze(-1)' });
  const [n, c] = x.shape as [number, number];
  const rest = x.shape.slice(2);
  if (c % g !== 0) throw new ShapeError(`the channels (${c}) must be divisible by groups = ${g}`, { op, shapes: [x.shape] });
  x.live(op);
  return tidy(() => x.reshape([n, g, c / g, ...rest]).swapDims(1, 2).reshape([n, c, ...rest]), x.backend.runtime);
}
