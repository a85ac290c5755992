/**
 * StarPU's non-linear regression for sizes never measured: t(n) = a * n^b + c, fitted to the
 * robust means of the sizes that were. For a given c, a and b come from a least-squares line
 * through (log n, log(t - c)); c in [0, min t) is the one with the least relative error (a grid,
 * then a golden-section search around its best point).
 */

export interface PowerLaw {
  readonly a: number;
  readonly b: number;
  readonly c: number;
  /** Root mean square relative error of the fit over its points. */
  readonly error: number;
}

export interface Point {
  readonly n: number;
  readonly ms: number;
}

/** Sizes the fit needs: at least 3 distinct, spanning a factor of 4. */
export const MIN_POINTS = 3;

export function evaluate(law: PowerLaw, n: number): number {
  return law.a * n ** law.b + law.c;
}

function lineFit(xs: readonly number[], ys: readonly number[]): { slope: number; intercept: number } | undefined {
  const k = xs.length;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < k; i++) {
    sx += xs[i]!;
    sy += ys[i]!;
  }
  const mx = sx / k;
  const my = sy / k;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < k; i++) {
    sxx += (xs[i]! - mx) ** 2;
    sxy += (xs[i]! - mx) * (ys[i]! - my);
  }
  if (sxx === 0) return undefined;
  const slope = sxy / sxx;
  return { slope, intercept: my - slope * mx };
}

export function fitPowerLaw(points: readonly Point[]): PowerLaw | undefined {
  const pts = points.filter((p) => p.n > 0 && p.ms > 0 && Number.isFinite(p.ms));
  const ns = new Set(pts.map((p) => p.n));
  if (ns.size < MIN_POINTS) return undefined;
  const minN = Math.min(...ns);
  const maxN = Math.max(...ns);
  if (maxN < 4 * minN) return undefined;
  const minT = Math.min(...pts.map((p) => p.ms));
  const logN = pts.map((p) => Math.log(p.n));
  const fitAt = (c: number): PowerLaw | undefined => {
    const fit = lineFit(
      logN,
      pts.map((p) => Math.log(p.ms - c)),
    );
    if (!fit) return undefined;
    const a = Math.exp(fit.intercept);
    const b = fit.slope;
    // A cost that falls as the problem grows is noise, not a model.
    if (!(b >= 0) || !Number.isFinite(a)) return undefined;
    let err = 0;
    for (const p of pts) err += ((a * p.n ** b + c - p.ms) / p.ms) ** 2;
    return { a, b, c, error: Math.sqrt(err / pts.length) };
  };
  // A coarse grid over c in [0, min t), then a golden-section search around the best point.
  const steps = 24;
  let best: PowerLaw | undefined;
  let bestI = 0;
  for (let i = 0; i < steps; i++) {
    const f = fitAt((minT * i) / steps);
    if (f && (!best || f.error < best.error)) {
      best = f;
      bestI = i;
    }
  }
  if (!best) return undefined;
  let lo = (minT * Math.max(bestI - 1, 0)) / steps;
  let hi = (minT * Math.min(bestI + 1, steps - 0.001)) / steps;
  const g = (Math.sqrt(5) - 1) / 2;
  const errAt = (c: number): number => fitAt(c)?.error ?? Infinity;
  let x1 = hi - g * (hi - lo);
  let x2 = lo + g * (hi - lo);
  let e1 = errAt(x1);
  let e2 = errAt(x2);
  for (let k = 0; k < 40; k++) {
    if (e1 < e2) {
      hi = x2;
      x2 = x1;
      e2 = e1;
      x1 = hi - g * (hi - lo);
      e1 = errAt(x1);
    } else {
      lo = x1;
      x1 = x2;
      e1 = e2;
      x2 = lo + g * (hi - lo);
      e2 = errAt(x2);
    }
  }
  const refined = fitAt((lo + hi) / 2);
  if (refined && refined.error < best.error) best = refined;
  return best;
}
