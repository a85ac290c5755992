/**
 * Layer normalisation (torch.nn.LayerNorm) over the trailing dims `normalizedShape`, with a learned
 * scale (ones) and shift (zeros) of that shape unless turned off.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ones, zeros } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { checkBoolean, checkInteger, checkKeys, show } from '../ir/validate.js';
import { layerNorm } from './functional/normalization.js';
import { checkEps, checkLayer, checkTensors } from './check.js';
import { Module, type TorchKey } from './module.js';
import { Param } from './param.js';

export interface LayerNormOptions {
  /** Added to the variance (default 1e-5). */
  eps?: number;
  /** Learn a scale and a shift of shape normalizedShape (default true); false: no parameters. */
  elementwiseAffine?: boolean;
  /** Learn the shift (default true); false: the scale only. Ignored without elementwiseAffine, as torch. */
  bias?: boolean;
  device?: Device;
}

const OPTION_KEYS = ['eps', 'elementwiseAffine', 'bias', 'device'] as const;

export class LayerNorm<B extends Backend = Backend> extends Module<B> {
  /** The scale (torch's weight); undefined with elementwiseAffine false. */
  readonly gamma: Param<B> | undefined;
  /** The shift (torch's bias); undefined with elementwiseAffine or bias false. */
  readonly beta: Param<B> | undefined;
  readonly normalizedShape: readonly number[];
  readonly eps: number;

  /** `new LayerNorm(b, 5)`, `new LayerNorm(b, [3, 4], { eps, elementwiseAffine, bias, device })`, or eps third as before: `new LayerNorm(b, 5, 1e-6, { device })`. */
  constructor(backend: B, normalizedShape: number | readonly number[], options?: LayerNormOptions);
  constructor(backend: B, normalizedShape: number | readonly number[], eps: number | undefined, options?: LayerNormOptions);
  constructor(backend: B, normalizedShape: number | readonly number[], epsOrOptions?: number | LayerNormOptions, more?: LayerNormOptions) {
    super();
    const op = 'LayerNorm';
    // The third argument was eps (a number) before options existed; an object there is the options.
    const optionsThird = typeof epsOrOptions === 'object' && epsOrOptions !== null;
    if (optionsThird && more !== undefined) {
      throw new ArgumentError('options were given twice (third and fourth arguments)', { op, hint: 'pass new LayerNorm(backend, shape, { eps, device, ... })' });
    }
    const options: unknown = optionsThird ? epsOrOptions : more;
    checkLayer(op, backend, options);
    checkKeys(op, options, OPTION_KEYS);
    const o: LayerNormOptions = typeof epsOrOptions === 'object' && epsOrOptions !== null ? epsOrOptions : (more ?? {});
    const eps: unknown = optionsThird ? undefined : epsOrOptions;
    if (eps !== undefined && o.eps !== undefined) throw new ArgumentError('eps was given twice (third argument and options.eps)', { op, hint: 'give it once' });
    // Only undefined means the default: an untyped null is refused, not read as 'missing'.
    this.eps = checkEps(op, eps !== undefined ? eps : o.eps !== undefined ? o.eps : 1e-5);
    this.normalizedShape = checkShape(op, normalizedShape);
    const affine = o.elementwiseAffine === undefined ? true : checkBoolean(op, 'elementwiseAffine', o.elementwiseAffine);
    const bias = o.bias === undefined ? true : checkBoolean(op, 'bias', o.bias);
    const device = o.device ?? backend.defaultDevice();
    if (affine) {
      this.gamma = new Param(ones(backend, this.normalizedShape, { device }));
      if (bias) this.beta = new Param(zeros(backend, this.normalizedShape, { device }));
    }
  }

  override torchKeys(): Readonly<Record<string, TorchKey>> {
    return { gamma: { key: 'weight' }, beta: { key: 'bias' } };
  }

  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    const op = 'LayerNorm';
    checkTensors(op, { input: x });
    // The trailing dims must be exactly the normalised ones (broadcasting would otherwise hide a wrong size).
    const shape = this.normalizedShape;
    const tail = x.shape.slice(x.rank - shape.length);
    if (x.rank < shape.length || tail.some((d, i) => d !== shape[i])) {
      const want = shape.length === 1 ? `last dim must be ${shape[0]}` : `last ${shape.length} dims must be [${shape.join(', ')}]`;
      throw new ShapeError(`the input's ${want} (the normalized shape)`, { op, shapes: [x.shape, shape], hint: `give an input [..., ${shape.join(', ')}], or build the LayerNorm with the input's trailing dims` });
    }
    return layerNorm(x, shape, { weight: this.gamma?.value, bias: this.beta?.value, eps: this.eps });
  }
}

/** A size (the old form's `dim`, named so in errors) or a non-empty list of sizes, each an integer >= 1. */
function checkShape(op: string, v: unknown): readonly number[] {
  if (typeof v === 'number') return [checkInteger(op, 'dim', v, 1)];
  if (!Array.isArray(v) || v.length === 0) {
    throw new ArgumentError(`normalizedShape must be a size or a non-empty list of sizes, got ${show(v)}`, { op, hint: 'the trailing dims to normalise over, e.g. 512 or [3, 4]' });
  }
  return v.map((d: unknown) => checkInteger(op, 'normalizedShape', d, 1));
}
