/** Float64 re-implementations of torch.optim's documented update rules, per element: the optimizers' references in tests. */

/** One element's update: parameter, gradient, the element's state (filled by the rule), step count from 1. */
export type Rule = (p: number, g: number, s: Record<string, number>, t: number) => number;

export const adam = (lr: number, b1: number, b2: number, eps: number, wd: number, decoupled: boolean, amsgrad: boolean): Rule => (p0, g0, s, t) => {
  const p = decoupled ? p0 * (1 - lr * wd) : p0;
  const g = decoupled ? g0 : g0 + wd * p0;
  s.m = b1 * (s.m ?? 0) + (1 - b1) * g;
  s.v = b2 * (s.v ?? 0) + (1 - b2) * g * g;
  const second = amsgrad ? (s.vMax = Math.max(s.vMax ?? 0, s.v)) : s.v;
  return p - (lr * (s.m / (1 - b1 ** t))) / (Math.sqrt(second / (1 - b2 ** t)) + eps);
};
export const sgd = (lr: number, momentum: number, dampening: number, wd: number, nesterov: boolean): Rule => (p, g0, s) => {
  let d = g0 + wd * p;
  if (momentum !== 0) {
    s.buf = s.buf === undefined ? d : momentum * s.buf + (1 - dampening) * d;
    d = nesterov ? d + momentum * s.buf : s.buf;
  }
  return p - lr * d;
};
export const rmsprop = (lr: number, alpha: number, eps: number, wd: number, momentum: number, centered: boolean): Rule => (p, g0, s) => {
  const g = g0 + wd * p;
  s.v = alpha * (s.v ?? 0) + (1 - alpha) * g * g;
  let avg = Math.sqrt(s.v) + eps;
  if (centered) {
    s.ga = alpha * (s.ga ?? 0) + (1 - alpha) * g;
    avg = Math.sqrt(s.v - s.ga * s.ga) + eps;
  }
  if (momentum > 0) {
    s.buf = momentum * (s.buf ?? 0) + g / avg;
    return p - lr * s.buf;
  }
  return p - (lr * g) / avg;
};
export const adagrad = (lr: number, lrDecay: number, wd: number, init: number, eps: number): Rule => (p, g0, s, t) => {
  const g = g0 + wd * p;
  s.sum = (s.sum ?? init) + g * g;
  return p - ((lr / (1 + (t - 1) * lrDecay)) * g) / (Math.sqrt(s.sum) + eps);
};
export const adamax = (lr: number, b1: number, b2: number, eps: number, wd: number): Rule => (p, g0, s, t) => {
  const g = g0 + wd * p;
  s.m = b1 * (s.m ?? 0) + (1 - b1) * g;
  s.u = Math.max(b2 * (s.u ?? 0), Math.abs(g) + eps);
  return p - (lr / (1 - b1 ** t)) * (s.m / s.u);
};
