/** The matmul gradient: dA = dY Bᵀ, dB = Aᵀ dY, with broadcast batch dims summed away. */
import { reduceTo } from './broadcast.js';
import type { GradEntry } from './rule.js';

export const MATMUL_GRAD: GradEntry<'matmul'> = {
  saveInputs: [0, 1],
  backward: (c) => [
    c.needs[0] ? reduceTo(c.dy.matmul(c.input(1).transpose()), c.metas[0]!.shape) : undefined,
    c.needs[1] ? reduceTo(c.input(0).transpose().matmul(c.dy), c.metas[1]!.shape) : undefined,
  ],
};
