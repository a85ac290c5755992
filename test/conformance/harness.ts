/**
 * The case type of the conformance suite and the runner that checks one case against one
 * backend. No vitest here: the vitest wrapper and the CLI both call `runCase`.
 */
import type { Backend } from '../../src/backends/backend.js';
import type { DType } from '../../src/ir/dtype.js';
import { tidy } from '../../src/memory/tidy.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { unravel } from './ref.js';
import { roundHalf } from '../../src/ir/half.js';

/** A value passes when |got - want| <= abs + rel * |want|. Bool and int32 outputs are always compared exactly. */
export interface Tol {
  readonly abs: number;
  readonly rel: number;
}

export const EXACT: Tol = { abs: 0, rel: 0 };
/** One correctly rounded float32 op (add, sub, mul, div, comparisons' inputs). */
export const ARITH: Tol = { abs: 0, rel: 1e-6 };
/** exp, log, sin, erf, pow, ... */
export const TRANS: Tol = { abs: 1e-6, rel: 1e-5 };
/** A float32 reduction (or dot product) over `k` terms. */
export function accTol(k: number): Tol {
  return { abs: 1e-5 * Math.sqrt(Math.max(k, 1)), rel: 1e-5 };
}

/**
 * float16 results: the kernels compute in float32 and round once to float16, so a result may be
 * one float16 step (2^-10 relative, 2^-24 absolute below the normals) from the float64
 * reference rounded to float16, on top of the float32 computation's own tolerance `t`.
 * Composites that round intermediate results to float16 pass `steps` (one step per rounding).
 */
export function halfTol(t: Tol, steps = 1): Tol {
  return { abs: t.abs + steps * 2 ** -24, rel: t.rel + steps * 2 ** -10 };
}

/** What an output must be: computed by the float64 reference, never by the code under test. */
export interface Expected {
  readonly shape: readonly number[];
  readonly dtype: DType;
  readonly values: readonly number[];
}

interface CaseBase {
  /** Unique; test names are `[backend] name`. */
  readonly name: string;
  /** The op family, e.g. 'add', 'matmul', 'slice'. */
  readonly op: string;
  readonly tol: Tol;
}

/** Builds outputs through the tensor API; the runner reads them and compares with `expected`. */
export interface ValueCase extends CaseBase {
  readonly kind: 'value';
  readonly build: (b: Backend) => Tensor | readonly Tensor[];
  readonly expected: () => Expected | readonly Expected[];
}

/** A case that checks properties rather than values (random streams); throws on failure. */
export interface CheckCase extends CaseBase {
  readonly kind: 'check';
  readonly check: (b: Backend, tol: Tol) => Promise<void>;
}

export type Case = ValueCase | CheckCase;

export class ConformanceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConformanceError';
  }
}

export function fmtShape(s: readonly number[]): string {
  return `[${s.join(',')}]`;
}

function fmtNum(v: number): string {
  if (Object.is(v, -0)) return '-0';
  return Number.isInteger(v) || !Number.isFinite(v) ? String(v) : v.toPrecision(9);
}

function valueOk(got: number, want64: number, dtype: DType, tol: Tol): boolean {
  if (dtype !== 'float32' && dtype !== 'float16') return got === want64;
  // The float the exact result rounds to: overflow to inf and underflow to 0 are then expected.
  const want = dtype === 'float16' ? roundHalf(want64) : Math.fround(want64);
  if (Number.isNaN(want)) return Number.isNaN(got);
  if (Number.isNaN(got)) return false;
  if (!Number.isFinite(want)) return got === want;
  if (!Number.isFinite(got)) return false;
  return Math.abs(got - want) <= tol.abs + tol.rel * Math.abs(want);
}

/** Throws a ConformanceError naming the first mismatches. */
export function compare(label: string, got: { shape: readonly number[]; dtype: DType; values: ArrayLike<number> }, want: Expected, tol: Tol): void {
  if (got.shape.length !== want.shape.length || got.shape.some((d, i) => d !== want.shape[i])) {
    throw new ConformanceError(`${label}: shape ${fmtShape(got.shape)}, expected ${fmtShape(want.shape)}`);
  }
  if (got.dtype !== want.dtype) throw new ConformanceError(`${label}: dtype ${got.dtype}, expected ${want.dtype}`);
  if (got.values.length !== want.values.length) {
    throw new ConformanceError(`${label}: ${got.values.length} values, expected ${want.values.length}`);
  }
  const bad: string[] = [];
  let nBad = 0;
  for (let i = 0; i < want.values.length; i++) {
    const g = got.values[i]!;
    const w = want.values[i]!;
    if (valueOk(g, w, want.dtype, tol)) continue;
    nBad++;
    if (bad.length < 6) bad.push(`at ${fmtShape(unravel(i, want.shape))} got ${fmtNum(g)} want ${fmtNum(w)}`);
  }
  if (nBad > 0) {
    const t = want.dtype === 'float32' || want.dtype === 'float16' ? ` (tol abs ${tol.abs}, rel ${tol.rel})` : ' (exact)';
    throw new ConformanceError(`${label}: ${nBad} of ${want.values.length} values differ${t}: ${bad.join('; ')}${nBad > bad.length ? '; ...' : ''}`);
  }
}

export function assert(cond: boolean, message: string): asserts cond {
  if (!cond) throw new ConformanceError(message);
}

/** Runs one case on one backend; resolves when it passes, rejects with the reason otherwise. */
export async function runCase(c: Case, backend: Backend): Promise<void> {
  if (c.kind === 'check') {
    await c.check(backend, c.tol);
    return;
  }
  const outs = tidy(() => {
    const r = c.build(backend);
    return r instanceof Tensor ? [r] : [...r];
  });
  try {
    const e = c.expected();
    const wants: readonly Expected[] = Array.isArray(e) ? (e as readonly Expected[]) : [e as Expected];
    if (outs.length !== wants.length) throw new ConformanceError(`${c.name}: ${outs.length} outputs, expected ${wants.length}`);
    for (let i = 0; i < outs.length; i++) {
      const got = await outs[i]!.toData();
      compare(outs.length > 1 ? `${c.name} (output ${i})` : c.name, got, wants[i]!, c.tol);
    }
  } finally {
    for (const o of outs) o.dispose();
  }
}
