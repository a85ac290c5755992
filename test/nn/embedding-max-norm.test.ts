/**
 * Embedding's maxNorm renorms the table in place, as torch's embedding_renorm_: several lookups
 * in one graph each read the table as it was then, and all their gradients reach the weight.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Decorator } from '../../src/backends/decorator.js';
import { numel, type OpRecord } from '../../src/ir/ops.js';
import { Embedding } from '../../src/nn/embedding.js';
import { ParamGrads } from '../../src/optim/param-grads.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

const cpu = new Cpu({ threads: 0 });
const ad = new Autodiff(cpu);
afterAll(() => ad.close());

async function vals(t: Tensor<Backend> | undefined): Promise<number[]> {
  expect(t).toBeDefined();
  return Array.from((await t!.toData()).values);
}

function expectClose(actual: readonly number[], expected: readonly number[], tol = 1e-6): void {
  expect(actual.length).toBe(expected.length);
  actual.forEach((a, i) => expect(Math.abs(a - expected[i]!), `element ${i}: ${a} vs ${expected[i]}`).toBeLessThanOrEqual(tol * Math.max(1, Math.abs(expected[i]!))));
}

const ints = (xs: number[], shape: number[]): Tensor<typeof ad, 'int'> => fromData(ad, new Int32Array(xs), { shape });

describe('Embedding maxNorm across several lookups', () => {
  it('two lookups (rows 0, then 2) both send their gradient to the weight (torch: [1, 1, 0, 0, 1, 1])', async () => {
    const e = new Embedding(ad, 3, 2, { maxNorm: 1 });
    e.weight.set(fromData(ad, [[3, 4], [0.6, 0.8], [6, 8]]));
    const a = e.forward(ints([0], [1]));
    const b = e.forward(ints([2], [1]));
    expectClose(await vals(a), [3 / (5 + 1e-7), 4 / (5 + 1e-7)]);
    expectClose(await vals(b), [6 / (10 + 1e-7), 8 / (10 + 1e-7)]);
    const grads = a.sum().add(b.sum()).backward();
    expect(await vals(e.weight.value.grad(grads))).toEqual([1, 1, 0, 0, 1, 1]);
  });

  it('three lookups, repeated rows, normType 1: values of torch 1.13, gradient of each plain lookup summed; optimizers see it too', async () => {
    const e = new Embedding(ad, 4, 3, { maxNorm: 1.5, normType: 1 });
    e.weight.set(fromData(ad, [[1, -2, 0.5], [0.2, 0.3, -0.1], [-3, 1, 1], [0.5, 0.5, 2]]));
    const x = e.forward(ints([0, 1, 0, 3], [2, 2]));
    const y = e.forward(ints([2, 0], [2]));
    const z = e.forward(ints([3], [1]));
    const upX = Array.from({ length: 12 }, (_, i) => i);
    const upY = Array.from({ length: 6 }, (_, i) => -i);
    const loss = x.mul(fromData(ad, upX, { shape: [2, 2, 3] })).sum().add(y.mul(fromData(ad, upY, { shape: [2, 3] })).sum()).add(z.sum().mul(0.5));
    // torch 1.13: nn.Embedding(4, 3, max_norm=1.5, norm_type=1.0), the same three calls.
    const r0 = [0.4285714030265808, -0.8571428060531616, 0.2142857015132904];
    const r1 = [0.20000000298023224, 0.30000001192092896, -0.10000000149011612];
    const r2 = [-0.8999999761581421, 0.29999998211860657, 0.29999998211860657];
    const r3 = [0.2499999850988388, 0.2499999850988388, 0.9999999403953552];
    expectClose(await vals(x), [...r0, ...r1, ...r0, ...r3]);
    expectClose(await vals(y), [...r2, ...r0]);
    expectClose(await vals(z), r3);
    expectClose(await vals(e.weight.value), [...r0, ...r1, ...r2, ...r3]);
    // float64 reference: row r gets the upstream gradient at each of its uses (torch 1.13 refuses
    // this backward, the weight having changed in place; torch 2 sums as here).
    const want = new Array<number>(12).fill(0);
    const add = (rows: number[], up: number[]): void => rows.forEach((r, k) => [0, 1, 2].forEach((j) => (want[3 * r + j]! += up[3 * k + j]!)));
    add([0, 1, 0, 3], upX);
    add([2, 0], upY);
    add([3], [0.5, 0.5, 0.5]);
    expect(want).toEqual([3, 4, 5, 3, 4, 5, 0, -1, -2, 9.5, 10.5, 11.5]);
    const only = loss.backward({ retainGraph: true, inputs: [e.weight.value] });
    expect(await vals(e.weight.value.grad(only))).toEqual(want);
    const pg = ParamGrads.from(loss.backward(), e);
    expect(await vals(pg.get(e.weight.id))).toEqual(want);
  });

  it('builds no [indices, numEmbeddings] temporary (a 50k vocabulary would take gigabytes)', () => {
    class Largest extends Decorator<Cpu> {
      readonly name = 'largest<cpu>';
      readonly autodiff = false;
      largest = 0;
      override submit(record: OpRecord): void {
        for (const o of record.outputs) this.largest = Math.max(this.largest, numel(o.shape));
        super.submit(record);
      }
    }
    const watch = new Largest(cpu);
    const wad = new Autodiff(watch);
    const e = new Embedding(wad, 1000, 4, { maxNorm: 1 });
    watch.largest = 0;
    e.forward(fromData(wad, new Int32Array(256).map((_, i) => (i * 37) % 1000), { shape: [256] })).dispose();
    expect(watch.largest).toBe(1000 * 4);
  });
});
