/**
 * The shared conformance suite: one table of cases, defined once, run against every backend.
 * Pure data and functions (no test framework): `vitest-suite.ts` registers them as vitest
 * tests and `cli.ts` runs them from the command line.
 *
 * Each case builds its inputs from a seeded PRNG (rng.ts), runs one op family through the
 * tensor API and compares with a float64 reference written independently (ref.ts), within the
 * case's stated tolerance (`tol`; exact for bool, int32 and movement ops).
 */
import { compositeCases } from './cases/composite.js';
import { creationCases } from './cases/creation.js';
import { elementwiseCases } from './cases/elementwise.js';
import { float16Cases } from './cases/float16.js';
import { mathCases } from './cases/math.js';
import { maskFillCases } from './cases/mask-fill.js';
import { matmulCases } from './cases/matmul.js';
import { orderingCases } from './cases/ordering.js';
import { reduceCases } from './cases/reduce.js';
import { reductionCases } from './cases/reductions.js';
import { shapeCases } from './cases/shape.js';
import { specialCases } from './cases/special.js';
import type { Case } from './harness.js';

export type { Case, CheckCase, ValueCase, Expected, Tol } from './harness.js';
export { runCase, compare, ConformanceError } from './harness.js';

/** Every case, in a stable order, with unique names. */
export function conformanceCases(): Case[] {
  const cases = [...elementwiseCases(), ...reduceCases(), ...matmulCases(), ...shapeCases(), ...creationCases(), ...specialCases(), ...mathCases(), ...reductionCases(), ...orderingCases(), ...compositeCases(), ...float16Cases(), ...maskFillCases()];
  const seen = new Set<string>();
  for (const c of cases) {
    if (seen.has(c.name)) throw new Error(`conformance: duplicate case name '${c.name}'`);
    seen.add(c.name);
  }
  return cases;
}
