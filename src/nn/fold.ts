/** torch.nn.Unfold / Fold: functional/fold.ts's unfold (im2col) and fold (col2im) as layers, settings checked when made. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { fold, unfold, type FoldOptions, type UnfoldOptions } from './functional/fold.js';
import { pair, type Pair } from './functional/args.js';
import { checkKeys, checkOptions } from '../ir/validate.js';
import { Module } from './module.js';

function settings(op: string, kernelSize: Pair, o: UnfoldOptions): Required<UnfoldOptions> & { kernelSize: [number, number] } {
  checkOptions(op, o);
  checkKeys(op, o, ['dilation', 'padding', 'stride']);
  return {
    kernelSize: pair(op, 'kernelSize', kernelSize, 1),
    dilation: pair(op, 'dilation', o.dilation ?? 1, 1),
    padding: pair(op, 'padding', o.padding ?? 0, 0),
    stride: pair(op, 'stride', o.stride ?? 1, 1),
  };
}

/** [N, C, H, W] (or [C, H, W]) -> [N, C kh kw, L]. */
export class Unfold<B extends Backend = Backend> extends Module<B> {
  readonly kernelSize: [number, number];
  readonly options: Required<UnfoldOptions>;
  constructor(kernelSize: Pair, options: UnfoldOptions = {}) {
    super();
    const { kernelSize: k, ...rest } = settings('Unfold', kernelSize, options);
    this.kernelSize = k;
    this.options = rest;
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return unfold(x, this.kernelSize, this.options);
  }
}

/** [N, C kh kw, L] (or [C kh kw, L]) -> [N, C, H, W] for outputSize [H, W], overlapping blocks summed. */
export class Fold<B extends Backend = Backend> extends Module<B> {
  readonly outputSize: [number, number];
  readonly kernelSize: [number, number];
  readonly options: Required<FoldOptions>;
  constructor(outputSize: Pair, kernelSize: Pair, options: FoldOptions = {}) {
    super();
    this.outputSize = pair('Fold', 'outputSize', outputSize, 1);
    const { kernelSize: k, ...rest } = settings('Fold', kernelSize, options);
    this.kernelSize = k;
    this.options = rest;
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return fold(x, this.outputSize, this.kernelSize, this.options);
  }
}
