/** Float helpers whose JS built-ins differ from C99 / PyTorch at the edges. */

/** torch.remainder: fmod, then moved into the divisor's sign (so remainder(-5, inf) is inf). */
export function frem(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && r < 0 !== b < 0 ? r + b : r;
}

/** C99 pow: pow(1, y) and pow(-1, ±inf) are 1 even for NaN / infinite y (Math.pow gives NaN). */
export function fpow(a: number, b: number): number {
  if (a === 1) return 1;
  if (a === -1 && (b === Infinity || b === -Infinity)) return 1;
  return Math.pow(a, b);
}

/** Round half to even (torch.round); Math.round rounds halves up. */
export function rint(a: number): number {
  const r = Math.round(a);
  return r - a === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** |a| with the sign of b, -0 counting as negative. (A NaN's sign bit does not survive into a JS number: NaN reads as positive.) */
export function copysign(a: number, b: number): number {
  const m = Math.abs(a);
  return b < 0 || Object.is(b, -0) ? -m : m;
}

/** torch.logaddexp: log(exp(a) + exp(b)) from the larger argument; equal infinities return themselves. */
export function logaddexp(a: number, b: number): number {
  if (a === b && (a === Infinity || a === -Infinity)) return a;
  return Math.max(a, b) + Math.log1p(Math.exp(-Math.abs(a - b)));
}
