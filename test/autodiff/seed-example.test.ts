/**
 * The seed's example, z3 = exp((x + y) @ x), on every backend: the gradient of y (and x) against
 * a float64 reference computed here, and the backends against each other.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { fromData } from '../../src/tensor/creation.js';
import { testBackends } from './backends.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

const X = [[0.1, 0.2], [0.3, 0.4]];
const Y = [[0.5, -0.6], [0.7, 0.8]];

/** dL/dy and dL/dx for L = sum(exp((x + y) x)), in float64 on the float32-rounded inputs. */
function reference(): { dx: number[]; dy: number[] } {
  const x = X.map((r) => r.map(Math.fround));
  const y = Y.map((r) => r.map(Math.fround));
  const z = x.map((r, i) => r.map((v, j) => v + y[i]![j]!));
  const mm = (a: number[][], b: number[][]) => a.map((r) => b[0]!.map((_, j) => r.reduce((s, v, k) => s + v * b[k]![j]!, 0)));
  const t = (a: number[][]) => a[0]!.map((_, j) => a.map((r) => r[j]!));
  const g = mm(z, x).map((r) => r.map(Math.exp)); // dL/dz2
  const dz = mm(g, t(x)); // through z2 = z x, w.r.t. z
  const dxDirect = mm(t(z), g); // w.r.t. the second x
  return { dy: dz.flat(), dx: dz.flat().map((v, i) => v + dxDirect.flat()[i]!) };
}

const results = new Map<string, { dx: Float32Array; dy: Float32Array }>();

describe('the seed example', () => {
  for (const tb of backends) {
    it(`matches the float64 reference on ${tb.name}`, async () => {
      const b = tb.backend;
      const x = fromData(b, X).requireGrad();
      const y = fromData(b, Y).requireGrad();
      const z = x.add(y);
      const z2 = z.matmul(x);
      const z3 = z2.exp();
      const grads = z3.backward();
      const dy = (await y.grad(grads)!.toData()).values;
      const dx = (await x.grad(grads)!.toData()).values;
      const ref = reference();
      for (let i = 0; i < 4; i++) {
        expect(dy[i]).toBeCloseTo(ref.dy[i]!, 5);
        expect(dx[i]).toBeCloseTo(ref.dx[i]!, 5);
      }
      results.set(tb.name, { dx, dy });
      grads.dispose();
    });
  }

  it('gives the same numbers on every backend', () => {
    const all = [...results.values()];
    expect(all.length).toBe(backends.length);
    for (const r of all) {
      for (let i = 0; i < 4; i++) {
        expect(Math.abs(r.dy[i]! - all[0]!.dy[i]!)).toBeLessThan(1e-5);
        expect(Math.abs(r.dx[i]! - all[0]!.dx[i]!)).toBeLessThan(1e-5);
      }
    }
  });
});
