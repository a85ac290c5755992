/**
 * erf for float32 accuracy: a Taylor series near 0 (where the erfc form would lose relative
 * precision) and Numerical Recipes' Chebyshev erfc (|rel. error| < 1.2e-7) elsewhere.
 */
export function erf(x: number): number {
  if (x !== x) return x;
  const z = Math.abs(x);
  if (z < 0.5) {
    const x2 = x * x;
    return 1.1283791670955126 * x * (1 - x2 * (1 / 3 - x2 * (1 / 10 - x2 * (1 / 42 - x2 * (1 / 216 - x2 * (1 / 1320 - x2 / 9360))))));
  }
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? 1 - r : r - 1;
}
