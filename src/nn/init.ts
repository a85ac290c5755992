/** Parameter initialisers, as in PyTorch's torch.nn.init. */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { Distribution, random } from '../tensor/creation.js';
import type { Tensor } from '../tensor/tensor.js';

export interface InitOptions {
  device?: Device;
}

export function uniform<B extends Backend>(backend: B, shape: readonly number[], low: number, high: number, options: InitOptions = {}): Tensor<B, 'float'> {
  return random(backend, shape, Distribution.Uniform(low, high), options);
}

export function normal<B extends Backend>(backend: B, shape: readonly number[], mean: number, std: number, options: InitOptions = {}): Tensor<B, 'float'> {
  return random(backend, shape, Distribution.Normal(mean, std), options);
}

/**
 * kaiming_uniform_: U(-b, b) with b = gain * sqrt(3 / fanIn), gain = sqrt(2 / (1 + a^2)).
 * PyTorch's Linear uses a = sqrt(5), which makes b = 1 / sqrt(fanIn).
 */
export function kaimingUniform<B extends Backend>(backend: B, shape: readonly number[], fanIn: number, options: InitOptions & { a?: number } = {}): Tensor<B, 'float'> {
  const a = options.a ?? Math.sqrt(5);
  const bound = Math.sqrt(2 / (1 + a * a)) * Math.sqrt(3 / fanIn);
  return uniform(backend, shape, -bound, bound, options);
}
