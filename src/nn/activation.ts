/** Activations as modules, for Sequential. */
import type { Backend } from '../backends/backend.js';
import type { Tensor } from '../tensor/tensor.js';
import { leakyRelu, silu, softplus } from './functional/activation.js';
import { Module } from './module.js';
import { checkTensors } from './check.js';

export class Relu<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensors(this.constructor.name, { input: x });
    return x.relu();
  }
}

/** The exact (erf) GELU, as PyTorch's default. */
export class Gelu<B extends Backend = Backend> extends Module<B> {
  forward(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
    checkTensors(this.constructor.name, { input: x });
    return x.gelu();
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
