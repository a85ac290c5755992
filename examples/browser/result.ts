/** What the browser example reports on `window.__switchyard`, and the data of its larger matmul. */
export interface BrowserResult {
  readonly backend: string;
  readonly adapter: string;
  readonly shape: number[];
  readonly values: number[];
  /** Whether the page is cross-origin isolated (then it has SharedArrayBuffer). */
  readonly isolated: boolean;
  /** A [BIG, BIG] product of small integers, large enough that the CPU backend would use its pool in Node. */
  readonly big: number[];
  readonly error?: string;
}

/** Side of the larger matmul (its cost, BIG^3 / 8, is past the CPU backend's inline threshold). */
export const BIG = 160;
/** Entries of the larger matmul's operands: small integers, so float32 products are exact. */
export const bigEntry = (i: number, j: number, salt: number): number => (i * 3 + j * 5 + salt) % 7;
