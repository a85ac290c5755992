/**
 * The LBFGS problems of tools/torch-vectors/optim.py (LBFGS_PROBLEMS), rebuilt with the same
 * constants: a module of the starting values and the loss as a function of its parameters.
 */
import type { AutodiffBackend } from '../../src/autodiff/types.js';
import { Module } from '../../src/nn/module.js';
import { Param } from '../../src/nn/param.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

export type Nested = number | Nested[];

/** A module whose parameters are 'ps.0', 'ps.1', ... */
export class Params<B extends AutodiffBackend> extends Module<B> {
  constructor(readonly ps: Array<Param<B>>) {
    super();
  }
}

export interface Problem {
  readonly start: readonly Nested[];
  loss<B extends AutodiffBackend>(b: B, ps: ReadonlyArray<Tensor<B, 'float'>>): Tensor<B, 'float'>;
}

export const QUAD_W: readonly Nested[] = [[1.0, 2.0, 0.5], [[1.5, 0.25], [3.0, 1.0]], 3.0];
export const QUAD_C: readonly Nested[] = [[0.5, -1.0, 2.0], [[1.0, -0.5], [0.25, 2.0]], 0.5];
const MLP_X = [[0.5, -1.0], [1.5, 0.25], [-0.75, 0.5], [1.0, 1.0]];
const MLP_Y = [[0.25], [-0.5], [0.75], [0.1]];

function at<T>(xs: readonly T[], i: number): T {
  const v = xs[i];
  if (v === undefined) throw new Error(`no element ${i}`);
  return v;
}

function tensor<B extends AutodiffBackend>(b: B, v: Nested): Tensor<B, 'float'> {
  return typeof v === 'number' ? fromData(b, [v], { shape: [] }) : fromData(b, v);
}

export const PROBLEMS: Readonly<Record<string, Problem>> = {
  rosenbrock: {
    start: [[-1.2, 0.8, 1.5], [1.0, -0.5, 2.0]],
    loss: (_b, ps) => {
      const a = at(ps, 0);
      const c = at(ps, 1);
      return c.sub(a.square()).square().mul(10).add(a.neg().add(1).square()).sum();
    },
  },
  quadratic: {
    start: [[0.0, 0.5, -0.5], [[0.25, 0.0], [-1.0, 0.5]], 1.5],
    loss: (b, ps) => {
      const [x, y, z] = [at(ps, 0), at(ps, 1), at(ps, 2)];
      const w = QUAD_W.map((v) => tensor(b, v));
      const c = QUAD_C.map((v) => tensor(b, v));
      const coupled = x.sum().add(y.sum()).sub(z).square().mul(0.5);
      return at(w, 0).mul(x.sub(at(c, 0)).square()).sum().add(at(w, 1).mul(y.sub(at(c, 1)).square()).sum()).add(at(w, 2).mul(z.sub(at(c, 2)).square())).add(coupled);
    },
  },
  mlp: {
    start: [[[0.3, -0.2, 0.5], [0.1, 0.4, -0.6]], [0.05, -0.1, 0.2], [[0.7], [-0.3], [0.2]], [0.1]],
    loss: (b, ps) => {
      const [w1, b1, w2, b2] = [at(ps, 0), at(ps, 1), at(ps, 2), at(ps, 3)];
      return fromData(b, MLP_X).matmul(w1).add(b1).tanh().matmul(w2).add(b2).sub(fromData(b, MLP_Y)).square().mean();
    },
  },
};

export function problem(name: string): Problem {
  const p = PROBLEMS[name];
  if (!p) throw new Error(`no LBFGS problem '${name}'`);
  return p;
}

/** The problem's starting values as a module, and a closure computing its loss there. */
export function setup<B extends AutodiffBackend>(b: B, name: string): { model: Params<B>; closure: () => Tensor<B, 'float'> } {
  const p = problem(name);
  const model = new Params<B>(p.start.map((v) => new Param(tensor(b, v))));
  return { model, closure: () => p.loss(b, model.ps.map((q) => q.value)) };
}
