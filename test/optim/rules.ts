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
/** torch 2.x's NAdam (Dozat): mu_t = b1 (1 - 0.5 * 0.96^(t md)), with the product of the mus so far. */
export const nadam = (lr: number, b1: number, b2: number, eps: number, wd: number, md: number, decoupled: boolean): Rule => (p0, g0, s, t) => {
  const p = decoupled ? p0 * (1 - lr * wd) : p0;
  const g = decoupled ? g0 : g0 + wd * p0;
  const mu = b1 * (1 - 0.5 * 0.96 ** (t * md));
  const muNext = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * md));
  s.muProduct = (s.muProduct ?? 1) * mu;
  s.m = b1 * (s.m ?? 0) + (1 - b1) * g;
  s.v = b2 * (s.v ?? 0) + (1 - b2) * g * g;
  const denom = Math.sqrt(s.v / (1 - b2 ** t)) + eps;
  return p - ((lr * (1 - mu)) / (1 - s.muProduct)) * (g / denom) - ((lr * muNext) / (1 - s.muProduct * muNext)) * (s.m / denom);
};
/** RAdam: the rectified adaptive step once rho_t > 5, else the bias-corrected momentum alone. */
export const radam = (lr: number, b1: number, b2: number, eps: number, wd: number, decoupled: boolean): Rule => (p0, g0, s, t) => {
  const p = decoupled ? p0 * (1 - lr * wd) : p0;
  const g = decoupled ? g0 : g0 + wd * p0;
  s.m = b1 * (s.m ?? 0) + (1 - b1) * g;
  s.v = b2 * (s.v ?? 0) + (1 - b2) * g * g;
  const mHat = s.m / (1 - b1 ** t);
  const rhoInf = 2 / (1 - b2) - 1;
  const rho = rhoInf - (2 * t * b2 ** t) / (1 - b2 ** t);
  if (rho <= 5) return p - lr * mHat;
  const r = Math.sqrt(((rho - 4) * (rho - 2) * rhoInf) / ((rhoInf - 4) * (rhoInf - 2) * rho));
  return p - (lr * mHat * r * Math.sqrt(1 - b2 ** t)) / (Math.sqrt(s.v) + eps);
};
export const adadelta = (lr: number, rho: number, eps: number, wd: number): Rule => (p, g0, s) => {
  const g = g0 + wd * p;
  s.sq = rho * (s.sq ?? 0) + (1 - rho) * g * g;
  const delta = (Math.sqrt((s.acc ?? 0) + eps) / Math.sqrt(s.sq + eps)) * g;
  s.acc = rho * (s.acc ?? 0) + (1 - rho) * delta * delta;
  return p - lr * delta;
};
/** Rprop: per-element step sizes grown by etaPlus while g keeps its sign, shrunk by etaMinus (and the step skipped) when it flips. */
export const rprop = (lr: number, etaMinus: number, etaPlus: number, min: number, max: number): Rule => (p, g, s) => {
  const sg = Math.sign(g * (s.prev ?? 0));
  const factor = sg > 0 ? etaPlus : sg < 0 ? etaMinus : 1;
  s.size = Math.min(Math.max((s.size ?? lr) * factor, min), max);
  s.prev = sg < 0 ? 0 : g;
  return p - Math.sign(s.prev) * s.size;
};
/** ASGD: eta and mu as torch computes them after each step, for the next; ax the running average. */
export const asgd = (lr: number, lambd: number, alpha: number, t0: number, wd: number): Rule => (p0, g0, s, t) => {
  const g = g0 + wd * p0;
  const eta = s.eta ?? lr;
  const p = p0 * (1 - lambd * eta) - eta * g;
  const mu = s.mu ?? 1;
  s.ax = mu === 1 ? p : (s.ax ?? 0) + (p - (s.ax ?? 0)) * mu;
  s.eta = lr / (1 + lambd * lr * t) ** alpha;
  s.mu = 1 / Math.max(1, t - t0);
  return p;
};
