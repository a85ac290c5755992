/**
 * StarPU's non-linear regression for sizes never measured: t(n) = a * n^b + c, fitted to the
 * robust means of the sizes that were. For each c on a grid in [0, min t), a and b come from a
 * least-squares line through (log n, log(t - c)); the c with the least relative error wins.
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
  let best: PowerLaw | undefined;
  const steps = 24;
  for (let i = 0; i < steps; i++) {
    const c = (minT * i) / steps;
    const fit = lineFit(
      logN,
      pts.map((p) => Math.log(p.ms - c)),
    );
    if (!fit) continue;
    const a = Math.exp(fit.intercept);
    const b = fit.slope;
    // A cost that falls as the problem grows is noise, not a model.
    if (!(b >= 0) || !Number.isFinite(a)) continue;
    let err = 0;
    for (const p of pts) err += ((a * p.n ** b + c - p.ms) / p.ms) ** 2;
    const error = Math.sqrt(err / pts.length);
    if (!best || error < best.error) best = { a, b, c, error };
  }
  return best;
}
