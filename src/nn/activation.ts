/** Activations as modules, for Sequential. */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { full } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';
import { ArgumentError } from '../errors.js';
import { checkInteger, checkKeys, checkNumber, checkOptions, field, show } from '../ir/validate.js';
import { celu, elu, gelu, glu, hardshrink, hardsigmoid, hardswish, hardtanh, leakyRelu, logSigmoid, mish, prelu, relu6, selu, silu, softmin, softplus, softshrink, softsign, tanhshrink, threshold } from './functional/activation.js';
import { Module } from './module.js';
import { Param } from './param.js';
import { checkLayer, checkTensors } from './check.js';

export class Relu<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensors(this.constructor.name, { input: x });
    return x.relu();
  }
}

/** GELU: exact (erf, PyTorch's default) or `approximate: 'tanh'` (torch.nn.GELU). */
export class Gelu<B extends Backend = Backend> extends Module<B> {
  readonly approximate: 'none' | 'tanh';
  constructor(options: { approximate?: 'none' | 'tanh' } = {}) {
    super();
    checkOptions('Gelu', options);
    const a: unknown = options.approximate ?? 'none';
    if (a !== 'none' && a !== 'tanh') throw new ArgumentError(`approximate must be 'none' or 'tanh', got ${show(a)}`, { op: 'Gelu' });
    this.approximate = a;
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return gelu(x, this.approximate);
  }
}

/** torch.nn.Hardtanh (default [-1, 1]). */
export class Hardtanh<B extends Backend = Backend> extends Module<B> {
  constructor(readonly minVal = -1, readonly maxVal = 1) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return hardtanh(x, this.minVal, this.maxVal);
  }
}

/** torch.nn.ReLU6. */
export class Relu6<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return relu6(x);
  }
}

/** torch.nn.Hardsigmoid. */
export class Hardsigmoid<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return hardsigmoid(x);
  }
}

/** torch.nn.Hardswish. */
export class Hardswish<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return hardswish(x);
  }
}

/** torch.nn.Mish. */
export class Mish<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return mish(x);
  }
}

/** torch.nn.SELU. */
export class Selu<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return selu(x);
  }
}

export class Tanh<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensors(this.constructor.name, { input: x });
    return x.tanh();
  }
}

export class Sigmoid<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensors(this.constructor.name, { input: x });
    return x.sigmoid();
  }
}

/** x * sigmoid(x) (torch.nn.SiLU). */
export class Silu<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return silu(x);
  }
}

/** torch.nn.LeakyReLU (negative slope default 0.01). */
export class LeakyRelu<B extends Backend = Backend> extends Module<B> {
  constructor(readonly negativeSlope = 0.01) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return leakyRelu(x, this.negativeSlope);
  }
}

/** torch.nn.Softplus (beta 1, threshold 20). */
export class Softplus<B extends Backend = Backend> extends Module<B> {
  constructor(readonly beta = 1, readonly threshold = 20) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return softplus(x, this.beta, this.threshold);
  }
}

/** Softmax along `dim` (default: the last; PyTorch makes the dim explicit). */
export class Softmax<B extends Backend = Backend> extends Module<B> {
  constructor(readonly dim = -1) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensors(this.constructor.name, { input: x });
    return x.softmax(this.dim);
  }
}

export class LogSoftmax<B extends Backend = Backend> extends Module<B> {
  constructor(readonly dim = -1) {
    super();
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensors(this.constructor.name, { input: x });
    return x.logSoftmax(this.dim);
  }
}

/** Returns its input (torch.nn.Identity). */
export class Identity<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return x;
  }
}

/**
 * The module's settings, checked when it is made (a bad one is an error at the constructor, not at
 * the first forward); a NaN setting is refused too.
 */
function checkSetting(op: string, name: string, v: unknown, finite: boolean): number {
  const n = checkNumber(op, name, v, finite);
  if (Number.isNaN(n)) throw new ArgumentError(`${name} must be a number, got NaN`, { op });
  return n;
}

/** torch.nn.ELU (alpha 1). */
export class Elu<B extends Backend = Backend> extends Module<B> {
  constructor(readonly alpha = 1) {
    super();
    checkSetting('Elu', 'alpha', alpha, true);
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return elu(x, this.alpha);
  }
}

/** torch.nn.CELU (alpha 1, not 0). */
export class Celu<B extends Backend = Backend> extends Module<B> {
  constructor(readonly alpha = 1) {
    super();
    checkSetting('Celu', 'alpha', alpha, true);
    if (alpha === 0) throw new ArgumentError('alpha cannot be 0 (it divides x)', { op: 'Celu' });
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return celu(x, this.alpha);
  }
}

/** torch.nn.GLU: halves of `dim` (default -1), a * sigmoid(b). */
export class Glu<B extends Backend = Backend> extends Module<B> {
  constructor(readonly dim = -1) {
    super();
    checkInteger('Glu', 'dim', dim);
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return glu(x, this.dim);
  }
}

/** torch.nn.LogSigmoid. */
export class LogSigmoid<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return logSigmoid(x);
  }
}

/** torch.nn.Softsign. */
export class Softsign<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return softsign(x);
  }
}

/** torch.nn.Tanhshrink. */
export class Tanhshrink<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return tanhshrink(x);
  }
}

/** torch.nn.Hardshrink (lambd 0.5). */
export class Hardshrink<B extends Backend = Backend> extends Module<B> {
  constructor(readonly lambd = 0.5) {
    super();
    checkSetting('Hardshrink', 'lambd', lambd, false);
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return hardshrink(x, this.lambd);
  }
}

/** torch.nn.Softshrink (lambd 0.5, >= 0). */
export class Softshrink<B extends Backend = Backend> extends Module<B> {
  constructor(readonly lambd = 0.5) {
    super();
    checkSetting('Softshrink', 'lambd', lambd, false);
    if (lambd < 0) throw new ArgumentError(`lambd must be >= 0, got ${lambd}`, { op: 'Softshrink' });
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return softshrink(x, this.lambd);
  }
}

/** torch.nn.Threshold(threshold, value): x above the threshold, else value. */
export class Threshold<B extends Backend = Backend> extends Module<B> {
  constructor(readonly threshold: number, readonly value: number) {
    super();
    checkSetting('Threshold', 'threshold', threshold, false);
    checkNumber('Threshold', 'value', value);
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return threshold(x, this.threshold, this.value);
  }
}

/** torch.nn.Softmin along `dim` (default: the last, as Softmax here). */
export class Softmin<B extends Backend = Backend> extends Module<B> {
  constructor(readonly dim = -1) {
    super();
    checkInteger('Softmin', 'dim', dim);
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return softmin(x, this.dim);
  }
}

export interface PReluOptions {
  /** 1 (one slope shared by every channel, the default) or the number of channels (dim 1 of the input). */
  numParameters?: number;
  /** The slopes' initial value (default 0.25). */
  init?: number;
  device?: Device;
}

/** torch.nn.PReLU: x where x > 0, else weight x, with a learned weight [numParameters] (torch's state-dict key 'weight'). */
export class PRelu<B extends Backend = Backend> extends Module<B> {
  readonly weight: Param<B>;
  readonly numParameters: number;
  constructor(backend: B, options: PReluOptions = {}) {
    super();
    const op = 'PRelu';
    checkLayer(op, backend, options);
    checkKeys(op, options, ['numParameters', 'init', 'device']);
    this.numParameters = checkInteger(op, 'numParameters', field(options, 'numParameters') ?? 1, 1);
    const init = checkNumber(op, 'init', field(options, 'init') ?? 0.25, true);
    this.weight = new Param(full(backend, [this.numParameters], init, { device: options.device ?? backend.defaultDevice() }));
  }
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    return prelu(x, this.weight.value);
  }
}
