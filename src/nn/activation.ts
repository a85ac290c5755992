/** Activations as modules, for Sequential. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { ArgumentError } from '../errors.js';
import { checkOptions, show } from '../ir/validate.js';
import { gelu, hardsigmoid, hardswish, hardtanh, leakyRelu, mish, relu6, selu, silu, softplus } from './functional/activation.js';
import { Module } from './module.js';
import { checkTensors } from './check.js';

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
