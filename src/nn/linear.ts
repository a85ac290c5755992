/**
 * y = x W + b. The weight is stored [in, out] (Burn's layout: no transpose in the forward pass);
 * a PyTorch state dict holds it [out, in]. Initialised as PyTorch's nn.Linear.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import type { Tensor } from '../tensor/tensor.js';
import { ArgumentError } from '../errors.js';
import { show } from '../ir/validate.js';
import { checkLayer, checkTensors } from './check.js';
import { kaimingUniform, uniform } from './init.js';
import { Module, type TorchKey } from './module.js';
import { Param } from './param.js';
import { zeros } from '../tensor/creation.js';

export interface LinearOptions {
  /** Default true. */
  bias?: boolean;
  device?: Device;
}

export class Linear<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  readonly bias: Param<B> | undefined;

  constructor(backend: B, readonly inFeatures: number, readonly outFeatures: number, options: LinearOptions = {}) {
    super();
    // Untyped callers: a null options or a missing backend is named here, not a TypeError below.
    checkLayer('Linear', backend, options);
    for (const [name, v] of [['inFeatures', inFeatures], ['outFeatures', outFeatures]] as const) {
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) throw new ArgumentError(`${name} must be an integer >= 0, got ${show(v)}`, { op: 'Linear' });
    }
    const device = options.device ?? backend.defaultDevice();
    // With no inputs (fanIn 0) torch leaves the empty weight alone and draws the bias from U(0, 0): zeros.
    this.weight = new Param(inFeatures === 0 ? zeros(backend, [0, outFeatures], { device }) : kaimingUniform(backend, [inFeatures, outFeatures], inFeatures, { device }));
    const bound = inFeatures === 0 ? 0 : 1 / Math.sqrt(inFeatures);
    this.bias = options.bias === false ? undefined : new Param(bound === 0 ? zeros(backend, [outFeatures], { device }) : uniform(backend, [outFeatures], -bound, bound, { device }));
  }

  override torchKeys(): Readonly<Record<string, TorchKey>> {
    return { weight: { key: 'weight', layout: 'transpose' } };
  }

  /** [..., in] -> [..., out]. */
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensors('Linear', { input: x });
    const y = x.matmul(this.weight.value);
    if (!this.bias) return y;
    const out = y.add(this.bias.value);
    y.dispose();
    return out;
  }
}
