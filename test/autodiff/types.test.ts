/**
 * Type tests, checked by `tsc -p tsconfig.json --noEmit` (run first by `npm test`): backward and
 * friends exist only on tensors of an autodiff backend. The function is never called.
 */
import { describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Gradients } from '../../src/autodiff/gradients.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { arange, zeros } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

function typeChecks(cpu: Cpu, ad: Autodiff<Cpu>, grads: Gradients): void {
  const plain = zeros(cpu, [2]);
  // @ts-expect-error backward() needs an autodiff backend
  plain.backward();
  // @ts-expect-error requireGrad() needs an autodiff backend
  plain.requireGrad();
  // @ts-expect-error grad() needs an autodiff backend
  plain.grad(grads);

  const x = zeros(ad, [2]).requireGrad();
  const g: Gradients = x.sum().backward();
  const dx: Tensor<Autodiff<Cpu>, 'float'> | undefined = x.grad(g);
  void dx;
  // detach exists everywhere and keeps the tensor's type.
  const d: Tensor<Cpu, 'float'> = plain.detach();
  void d;

  // @ts-expect-error only float tensors require grad
  arange(ad, 3).requireGrad();
  // @ts-expect-error backward needs a float tensor
  arange(ad, 3).backward();
}

describe('autodiff types', () => {
  it('are checked by tsc (this file compiles only if every @ts-expect-error is an error)', () => {
    expect(typeof typeChecks).toBe('function');
  });
});
