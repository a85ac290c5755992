/**
 * Creation programs: fill, arange and the counter-based random stream (element i of a random
 * op is a function of (seed, counter + i), the same stream as src/ir/random.ts).
 */
import type { DistributionSpec } from '../../../ir/ops.js';
import { header, linearEntry, type Program } from './common.js';
import { PRELUDE, RANDOM_PRELUDE } from './prelude.js';

export const CREATE_WORKGROUP = 256;

/** y[i] = the bit pattern in word 1. Parameters: [n, bits]. */
export const fillProgram: Program = {
  key: 'fill',
  bindings: ['write'],
  source: () => `${header([{ name: 'y', type: 'u32', kind: 'write' }])}\n${linearEntry(CREATE_WORKGROUP, '  if (i >= pu(0u)) { return; }\n  y[i] = pu(1u);')}\n`,
};

/**
 * Float arange, start + i * step rounded once: start and step travel as float32 hi + lo pairs
 * and the product's error is kept with fma (the CPU computes in float64).
 * Parameters: [n, startHi, startLo, stepHi, stepLo].
 */
export const arangeFloatProgram: Program = {
  key: 'arange|f32',
  bindings: ['write'],
  source: () =>
    `${header([{ name: 'y', type: 'f32', kind: 'write' }])}\n${linearEntry(
      CREATE_WORKGROUP,
      `  if (i >= pu(0u)) { return; }
  let sh = pf(1u);
  let sl = pf(2u);
  let th = pf(3u);
  let tl = pf(4u);
  let fi = f32(i);
  let p = fi * th;
  let pe = fma(fi, th, -p);
  let s = sh + p;
  let bp = s - sh;
  let se = (sh - (s - bp)) + (p - bp);
  y[i] = s + (se + pe + fma(fi, tl, sl));`,
    )}\n`,
};

/** Int arange, wrapping at 32 bits. Parameters: [n, start, step]. */
export const arangeIntProgram: Program = {
  key: 'arange|i32',
  bindings: ['write'],
  source: () => `${header([{ name: 'y', type: 'i32', kind: 'write' }])}\n${linearEntry(CREATE_WORKGROUP, '  if (i >= pu(0u)) { return; }\n  y[i] = pi(1u) + i32(i) * pi(2u);')}\n`,
};

/** Parameters: [n, seed, counter, a, b] where a, b depend on the distribution (see kernels/creation.ts). */
export function randomProgram(kind: DistributionSpec['kind']): Program {
  const value = {
    default: 'sy_rand_unit(seed, c + i)',
    uniform: 'min(fma(sy_rand_unit(seed, c + i), pf(4u), pf(3u)), pf(5u))',
    bernoulli: 'select(0.0, 1.0, (sy_rand_u32(seed, c + i) >> 8u) < pu(3u))',
    normal: 'pf(3u) + pf(4u) * sy_normal(seed, c + 2u * i)',
  }[kind];
  return {
    key: `random|${kind}`,
    bindings: ['write'],
    source: () =>
      `${PRELUDE}\n${RANDOM_PRELUDE}\n${header([{ name: 'y', type: 'f32', kind: 'write' }])}\n${linearEntry(
        CREATE_WORKGROUP,
        `  if (i >= pu(0u)) { return; }\n  let seed = pu(1u);\n  let c = pu(2u);\n  y[i] = ${value};`,
      )}\n`,
  };
}
