/**
 * Coefficients of the special functions (lgamma, digamma) shared by the CPU kernels (float64)
 * and the WGSL prelude (float32), so both backends evaluate one algorithm.
 */

/** The Euler-Mascheroni constant. */
export const EULER_GAMMA = 0.5772156649015329;

/** zeta(k) - 1 for k >= 2: the sum to n = 63 plus the Euler-Maclaurin tail from 64 (error far below 1e-16). */
function zetaMinus1(k: number): number {
  const N = 64;
  let s = 0;
  for (let n = N - 1; n >= 2; n--) s += n ** -k;
  const tail = N ** (1 - k) / (k - 1) + N ** -k / 2 + (k * N ** (-k - 1)) / 12 - (k * (k + 1) * (k + 2) * N ** (-k - 3)) / 720 + (k * (k + 1) * (k + 2) * (k + 3) * (k + 4) * N ** (-k - 5)) / 30240;
  return s + tail;
}

/**
 * lgamma(2 + z) = (1 - gamma) z + sum_{k >= 2} (-1)^k (zeta(k) - 1) / k z^k for |z| <= 1/2: the
 * coefficients c_1 .. c_n. No cancellation near the zeros of lgamma at 1 and 2 (as a shifted
 * Stirling series would have); the terms fall by about 4^-k.
 */
export function lgammaSeries(n: number): number[] {
  const c = [1 - EULER_GAMMA];
  for (let k = 2; k <= n; k++) c.push(((k % 2 === 0 ? 1 : -1) * zetaMinus1(k)) / k);
  return c;
}

/** digamma(10) (torch's PSI_10: its algorithm returns it exactly there). */
export const PSI_10 = 2.251752589066721;
