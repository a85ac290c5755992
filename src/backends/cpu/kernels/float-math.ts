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
