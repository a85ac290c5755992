/**
 * einsum against a brute-force float64 reference (its own parser; every index tuple summed) on
 * every test backend: explicit and implicit outputs, diagonals, traces, ellipses, size-1
 * broadcasting, size-0 dims, three operands; gradients against finite differences; the matmul
 * and permutation laws (fast-check); and the errors malformed equations and bad operands get.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import { einsum, Tensor } from '../../src/index.js';
import { fromData } from '../../src/tensor/creation.js';
import { testBackends } from '../autodiff/backends.js';
import { untyped } from '../untyped.js';
import { finiteDiff, leaf, mismatch, numel, randoms, ravel, unravel, valuesAndGrads, type Arr } from './ref64-ops.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

/** einsum by definition: for every output index, the sum over the other labels of the operands' product. */
function einsum64(eq: string, xs: readonly Arr[]): Arr {
  const [lhs, rhs] = eq.replace(/ /g, '').split('->') as [string, string | undefined];
  const terms = lhs.split(',');
  const letters = (t: string) => t.replace('...', '').split('').filter((c) => c !== '');
  let ell = 0;
  terms.forEach((t, i) => {
    if (t.includes('...')) ell = Math.max(ell, xs[i]!.shape.length - letters(t).length);
  });
  // Ellipsis dims become the labels '0', '1', ... aligned right.
  const ellLabels = Array.from({ length: ell }, (_, j) => String(j));
  const expand = (t: string, rank: number): string[] => {
    if (!t.includes('...')) return t.split('').filter((c) => c !== '');
    const [pre, post] = t.split('...') as [string, string];
    const covered = rank - pre.length - post.length;
    return [...pre.split('').filter((c) => c !== ''), ...ellLabels.slice(ell - covered), ...post.split('').filter((c) => c !== '')];
  };
  const labels = terms.map((t, i) => expand(t, xs[i]!.shape.length));
  const count = new Map<string, number>();
  for (const ls of labels) for (const l of ls) count.set(l, (count.get(l) ?? 0) + 1);
  const out = rhs === undefined ? [...ellLabels, ...[...count.keys()].filter((l) => count.get(l) === 1 && !/[0-9]/.test(l)).sort()] : expand(rhs, ell + letters(rhs).length);
  const size = new Map<string, number>();
  // A size of 1 broadcasts against the others (0 included).
  labels.forEach((ls, i) => ls.forEach((l, d) => (size.get(l) ?? 1) === 1 && size.set(l, xs[i]!.shape[d]!)));
  const summed = [...count.keys()].filter((l) => !out.includes(l));
  const outShape = out.map((l) => size.get(l)!);
  const sumShape = summed.map((l) => size.get(l)!);
  const data = Array.from({ length: numel(outShape) }, (_, o) => {
    const at = new Map<string, number>();
    unravel(o, outShape).forEach((v, k) => at.set(out[k]!, v));
    let total = 0;
    for (let s = 0; s < numel(sumShape); s++) {
      unravel(s, sumShape).forEach((v, k) => at.set(summed[k]!, v));
      let prod = 1;
      xs.forEach((x, i) => {
        const idx = labels[i]!.map((l, d) => (x.shape[d] === 1 ? 0 : at.get(l)!));
        prod *= x.data[ravel(idx, x.shape)]!;
      });
      total += prod;
    }
    return total;
  });
  return { shape: outShape, data };
}

const CASES: Array<[string, number[][]]> = [
  ['ij,jk->ik', [[2, 3], [3, 4]]],
  ['ij,jk', [[2, 3], [3, 4]]],
  ['ji,kj', [[3, 2], [4, 3]]],
  ['ij->ji', [[2, 3]]],
  ['ij', [[2, 3]]],
  ['ji', [[2, 3]]],
  ['ii', [[3, 3]]],
  ['ii->i', [[3, 3]]],
  ['iij->ji', [[2, 2, 3]]],
  ['iji->j', [[2, 3, 2]]],
  ['iii->i', [[2, 2, 2]]],
  ['ij->', [[2, 3]]],
  ['ij->j', [[2, 3]]],
  ['i,i->', [[4], [4]]],
  ['i,i', [[4], [4]]],
  ['i,j->ij', [[2], [3]]],
  ['i,j', [[2], [3]]],
  ['bij,bjk->bik', [[2, 2, 3], [2, 3, 2]]],
  ['bij,bjk->bki', [[2, 2, 3], [2, 3, 2]]],
  ['...ij,...jk->...ik', [[2, 1, 2, 3], [3, 3, 2]]],
  ['...ij,...jk', [[2, 1, 2, 3], [3, 3, 2]]],
  ['i...->...', [[3, 2, 2]]],
  ['...i->i', [[2, 3, 4]]],
  ['...,...', [[2, 3], [3]]],
  ['i...j,j...->i...', [[2, 3, 4], [4, 3]]],
  ['ijk,jil->kl', [[2, 3, 2], [3, 2, 4]]],
  ['ij,jk,kl->il', [[2, 3], [3, 4], [4, 2]]],
  ['ij,jk,kl', [[2, 3], [3, 4], [4, 2]]],
  ['a,b,c->abc', [[2], [3], [2]]],
  ['bn,anm,bm->ba', [[2, 3], [4, 3, 2], [2, 2]]],
  ['ij,ij->ij', [[1, 3], [2, 3]]],
  ['ij,jk->ik', [[2, 1], [3, 4]]],
  ['i,i->', [[1], [4]]],
  ['i,i->i', [[1], [4]]],
  ['ij,jk->ik', [[2, 0], [0, 3]]],
  ['ij,jk->ik', [[0, 3], [3, 2]]],
  ['ii->i', [[0, 0]]],
  ['ij->', [[0, 3]]],
  [',->', [[], []]],
  ['i,->i', [[3], []]],
  ['', [[]]],
  ['Ab,bC', [[2, 3], [3, 2]]],
  ['bA,Ab', [[2, 3], [3, 2]]],
  ['ba,ac', [[2, 3], [3, 2]]],
  [' i j , j k -> i k ', [[2, 3], [3, 2]]],
  ['ab...,b...->a', [[2, 3, 1, 2], [3, 4, 2]]],
];

for (const tb of backends) {
  describe(`einsum on ${tb.name}`, () => {
    const b = tb.backend;
    it('matches the float64 reference', async () => {
      let seed = 1;
      for (const [eq, shapes] of CASES) {
        const ins = shapes.map((s) => ({ shape: s, data: randoms(numel(s), seed++) }));
        const ts = ins.map((x) => fromData(b, Float32Array.from(x.data), { shape: x.shape }));
        const out = einsum(eq, ...ts);
        const ref = einsum64(eq, ins);
        expect(out.shape, eq).toEqual(ref.shape);
        expect(mismatch((await out.toData()).values, [...ref.data], 1e-5, 1e-5), eq).toBeUndefined();
        // The list form and the static give the same.
        const viaList = einsum(eq, ts);
        const viaStatic = Tensor.einsum(eq, ...ts);
        expect(mismatch((await viaList.toData()).values, [...ref.data], 1e-5, 1e-5), eq).toBeUndefined();
        expect(mismatch((await viaStatic.toData()).values, [...ref.data], 1e-5, 1e-5), eq).toBeUndefined();
        for (const t of [...ts, out, viaList, viaStatic]) t.dispose();
      }
    });

    it('edge values pass through as the products do (inf, NaN)', async () => {
      const a = fromData(b, [[1, Infinity], [NaN, 2]]);
      const v = fromData(b, [1, 0]);
      const out = einsum('ij,j->i', a, v);
      // inf * 0 is NaN in the contraction, as in torch's matmul.
      expect(mismatch((await out.toData()).values, [NaN, NaN])).toBeUndefined();
      const tr = einsum('ii', a);
      expect((await tr.toData()).values[0]).toBe(3);
      for (const t of [a, v, out, tr]) t.dispose();
    });

    it('gradients match finite differences of the reference', async () => {
      const grads: Array<[string, number[][]]> = [
        ['ij,jk->ik', [[2, 3], [3, 2]]],
        ['ii->i', [[3, 3]]],
        ['ii', [[3, 3]]],
        ['iij->ji', [[2, 2, 3]]],
        ['bij,bjk->bik', [[2, 2, 3], [2, 3, 2]]],
        ['...ij,...jk', [[2, 1, 2, 3], [3, 3, 2]]],
        ['ij,jk,kl->il', [[2, 3], [3, 2], [2, 2]]],
        ['ij,ij->ij', [[1, 3], [2, 3]]],
        ['ij,jk->ik', [[2, 1], [3, 2]]],
        ['i...->...', [[3, 2, 2]]],
        ['bn,anm,bm->ba', [[2, 3], [2, 3, 2], [2, 2]]],
      ];
      let seed = 500;
      for (const [eq, shapes] of grads) {
        const inputs = shapes.map((s) => randoms(numel(s), seed++));
        const ref = (vs: number[][]) => einsum64(eq, vs.map((d, k) => ({ shape: shapes[k]!, data: d })));
        const w = randoms(numel(ref(inputs).shape), seed++, -1, 1);
        const xs = inputs.map((d, k) => leaf(b, d, shapes[k]!));
        const out = einsum(eq, ...xs);
        const { grads: g } = await valuesAndGrads(b, out, xs, w);
        const numeric = finiteDiff((vs) => ref(vs).data, inputs, w);
        g.forEach((gk, k) => {
          expect(gk, `${eq}: input ${k}`).toBeDefined();
          expect(mismatch(gk!, numeric[k]!, 1e-3, 1e-3), `${eq}: input ${k}`).toBeUndefined();
        });
        for (const t of [...xs, out]) t.dispose();
      }
    });
  });
}

describe('einsum laws (fast-check, CPU)', () => {
  const b = backends[0]!.backend;
  const dim = fc.integer({ min: 0, max: 4 });
  it("'ij,jk->ik' is matmul, and swapping the operands' order does not change it", async () => {
    await fc.assert(
      fc.asyncProperty(dim, dim, dim, fc.integer(), async (m, k, n, seed) => {
        const a = fromData(b, Float32Array.from(randoms(m * k, seed)), { shape: [m, k] });
        const c = fromData(b, Float32Array.from(randoms(k * n, seed + 1)), { shape: [k, n] });
        const [e, swapped, mm] = [einsum('ij,jk->ik', a, c), einsum('jk,ij->ik', c, a), a.matmul(c)];
        const expected = Array.from((await mm.toData()).values);
        expect(mismatch((await e.toData()).values, expected, 1e-6, 1e-6)).toBeUndefined();
        expect(mismatch((await swapped.toData()).values, expected, 1e-6, 1e-6)).toBeUndefined();
        for (const t of [a, c, e, swapped, mm]) t.dispose();
      }),
      { numRuns: 40 },
    );
  });

  it('an output that permutes the subscripts is permute, and permuting back is the identity', async () => {
    const perms = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    await fc.assert(
      fc.asyncProperty(fc.tuple(dim, dim, dim), fc.constantFrom(...perms), fc.integer(), async (shape, perm, seed) => {
        const x = fromData(b, Float32Array.from(randoms(numel(shape), seed)), { shape });
        const out = ['i', 'j', 'k'];
        const eq = `ijk->${perm.map((p) => out[p]).join('')}`;
        const e = einsum(eq, x);
        const p = x.permute(perm);
        const back = einsum(`${perm.map((q) => out[q]).join('')}->ijk`, e);
        expect(e.shape).toEqual(p.shape);
        expect(Array.from((await e.toData()).values)).toEqual(Array.from((await p.toData()).values));
        expect(Array.from((await back.toData()).values)).toEqual(Array.from((await x.toData()).values));
        for (const t of [x, e, p, back]) t.dispose();
      }),
      { numRuns: 40 },
    );
  });
});

describe('einsum errors', () => {
  const b = backends[0]!.backend;
  const a = fromData(b, [[1, 2, 3], [4, 5, 6]]);
  const c = fromData(b, [[1, 2], [3, 4], [5, 6]]);
  const sq = fromData(b, [[1, 2], [3, 4]]);
  afterAll(() => {
    for (const t of [a, c, sq]) t.dispose();
  });

  it('malformed equations are ArgumentErrors naming the equation and the position', () => {
    expect(() => einsum('ij#,jk', a, c)).toThrow(/invalid character '#' at position 2 of 'ij#,jk'/);
    expect(() => einsum('i.j', a)).toThrow(/'\.' at position 1 of 'i\.j' is not part of an ellipsis/);
    expect(() => einsum('....', a)).toThrow(/position 3/);
    expect(() => einsum('i...j...', a)).toThrow(/second ellipsis at position 5/);
    expect(() => einsum('ij,jk->ik,i', a, c)).toThrow(/',' at position 9/);
    expect(() => einsum('ij,jk->i-k', a, c)).toThrow(/invalid character '-' at position 8/);
    expect(() => einsum('ij->k', a)).toThrow(/output subscript 'k' of 'ij->k' appears in no operand/);
    expect(() => einsum('ij->ii', a)).toThrow(/appears twice/);
    expect(() => einsum('ij,jk', a)).toThrow(/names 2 operands but 1 tensor was given/);
    expect(() => einsum('ij', a, c)).toThrow(ArgumentError);
    for (const eq of ['ij#,jk', 'ij->k', 'ij->ii']) expect(() => einsum(eq, a, c)).toThrow(ArgumentError);
  });

  it('shapes that do not fit are ShapeErrors naming the subscript and operands', () => {
    expect(() => einsum('ijk', a)).toThrow(ShapeError);
    expect(() => einsum('ijk', a)).toThrow(/operand 0 has rank 2 but its subscripts 'ijk' in 'ijk' name 3 dims/);
    expect(() => einsum('ij...k', a)).toThrow(/besides the ellipsis/);
    expect(() => einsum('ij,jk', a, a)).toThrow(/subscript 'j' is 3 in operand 0 \(dim 1\) but 2 in operand 1 \(dim 0\)/);
    expect(() => einsum('ii', a)).toThrow(/repeated in operand 0/);
    expect(() => einsum('...i,...i', a, fromData(b, [[1, 2, 3], [1, 2, 3], [1, 2, 3]]))).toThrow(/the ellipsis dim 0 is 2 in operand 0/);
  });

  it('bad operands and dtypes get typed errors (untyped callers too)', () => {
    const i = fromData(b, Int32Array.from([1, 2]));
    const h = fromData(b, [1, 2], { dtype: 'float16' });
    const v = fromData(b, [1, 2]);
    expect(() => einsum('i', untyped(i))).toThrow(DTypeError);
    expect(() => einsum('i,i', v, h)).toThrow(DTypeError);
    expect(() => einsum(untyped(5), v)).toThrow(ArgumentError);
    expect(() => einsum('i,i', v, untyped(null))).toThrow(/operand 1 must be a tensor/);
    expect(() => einsum('i', untyped(5))).toThrow(ArgumentError);
    expect(() => einsum('i', untyped([v, 3]))).toThrow(ArgumentError);
    expect(() => einsum('')).toThrow(/needs at least one operand/);
    const d = fromData(b, [1, 2]);
    d.dispose();
    expect(() => einsum('i', d)).toThrow(/disposed/);
    for (const t of [i, h, v]) t.dispose();
  });
});
