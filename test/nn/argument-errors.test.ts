/**
 * Errors that used to come from inside (a bare TypeError, "mul: not broadcastable") are typed
 * Switchyard errors naming the module or loss: Sequential given a non-module, and the binary
 * cross-entropy losses given a weight / posWeight that does not broadcast.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, ShapeError } from '../../src/errors.js';
import * as nn from '../../src/nn/index.js';
import { fromData } from '../../src/tensor/creation.js';
import { mismatch } from './conv-ref.js';
import { untyped } from '../untyped.js';
import { thrown } from '../thrown.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());


async function host(t: { toData(): Promise<{ values: ArrayLike<number> }> }): Promise<number[]> {
  return Array.from((await t.toData()).values);
}

describe('Sequential', () => {
  it('a non-module argument is an ArgumentError naming Sequential and its position', () => {
    const lin = new nn.Linear(ad, 2, 2);
    const cases: Array<[() => unknown, RegExp]> = [
      [() => new nn.Sequential(untyped<nn.Layer>(3)), /^Sequential: argument 1 \(layer 0\) must be a module, got 3;/],
      [() => new nn.Sequential(lin, new nn.Relu(), untyped(null)), /^Sequential: argument 3 \(layer 2\) must be a module, got null;/],
      [() => new nn.Sequential(lin, untyped({ forward: (x: unknown) => x })), /^Sequential: argument 2 \(layer 1\) must be a module, got an object;/],
      [() => new nn.Sequential(untyped<nn.Layer>([lin])), /Sequential: argument 1 \(layer 0\) must be a module, got an array of 1; hint: pass the layers as separate arguments: new Sequential\(\.\.\.layers\)/],
    ];
    for (const [f, message] of cases) {
      const err = thrown(f);
      expect(err).toBeInstanceOf(ArgumentError);
      expect(String(err).replace(/^ArgumentError: /, '')).toMatch(message);
    }
    // Modules are still accepted, and an empty Sequential is the identity as torch's.
    expect(new nn.Sequential(lin, new nn.Relu()).layers).toHaveLength(2);
    expect(new nn.Sequential().layers).toHaveLength(0);
  });
});

describe('binary cross-entropy weights that do not broadcast', () => {
  const p = fromData(ad, [[0.2, 0.7, 0.9], [0.4, 0.5, 0.1]]);
  const logits = fromData(ad, [[0.3, -1.2, 2], [1, 0, -0.5]]);
  const t = fromData(ad, [[0, 1, 1], [1, 0, 0]]);

  it('are ShapeErrors naming the loss, the option and both shapes; weights that broadcast still give torch\'s values', async () => {
    const cases: Array<[() => unknown, RegExp, number[][]]> = [
      [() => nn.binaryCrossEntropy(p, t, { weight: fromData(ad, [1, 2]) }), /^binaryCrossEntropy: weight \[2\] does not broadcast with the input \[2, 3\]/, [[2, 3], [2]]],
      [() => nn.binaryCrossEntropy(p, t, { weight: fromData(ad, [[1], [2], [3]]) }), /^binaryCrossEntropy: weight \[3, 1\] does not broadcast with the input \[2, 3\]/, [[2, 3], [3, 1]]],
      [() => nn.binaryCrossEntropyWithLogits(logits, t, { weight: fromData(ad, [1, 2, 3, 4]) }), /^binaryCrossEntropyWithLogits: weight \[4\] does not broadcast with the input \[2, 3\]/, [[2, 3], [4]]],
      [() => nn.binaryCrossEntropyWithLogits(logits, t, { posWeight: fromData(ad, [1, 2]) }), /^binaryCrossEntropyWithLogits: posWeight \[2\] does not broadcast with the target \[2, 3\]/, [[2, 3], [2]]],
      // posWeight may widen the losses (torch broadcasts it); weight is then checked against that shape.
      [
        () => nn.binaryCrossEntropyWithLogits(fromData(ad, [[0.5, 1, -1]]), fromData(ad, [[1, 0, 1]]), { posWeight: fromData(ad, [[1, 2, 3], [4, 5, 6]]), weight: fromData(ad, [[1], [2], [3]]) }),
        /^binaryCrossEntropyWithLogits: weight \[3, 1\] does not broadcast with the input broadcast with posWeight \[2, 3\]/,
        [[2, 3], [3, 1]],
      ],
    ];
    for (const [f, message, shapes] of cases) {
      const err = thrown(f);
      expect(err).toBeInstanceOf(ShapeError);
      expect(String(err).replace(/^ShapeError: /, '')).toMatch(message);
      expect(String(err)).not.toMatch(/\bmul\b/);
      expect(err instanceof ShapeError ? err.shapes : undefined).toEqual(shapes);
    }
    // A weight that is not a tensor is an ArgumentError naming the loss (it was a TypeError inside).
    expect(() => nn.binaryCrossEntropy(p, t, { weight: untyped(2) })).toThrow(/^binaryCrossEntropy: weight must be a tensor or undefined, got 2/);
    expect(() => nn.binaryCrossEntropyWithLogits(logits, t, { posWeight: untyped([1, 2, 3]) })).toThrow(ArgumentError);

    // The check refuses no weight that broadcasts: values against float64 references.
    const pv = [[0.2, 0.7, 0.9], [0.4, 0.5, 0.1]];
    const xv = [[0.3, -1.2, 2], [1, 0, -0.5]];
    const tv = [[0, 1, 1], [1, 0, 0]];
    const w = [0.5, 2, 1.5];
    const pw = [3, 0.5, 2];
    // torch: -w (t log p + (1 - t) log(1 - p)); with logits: w ((1 - t) x + (1 + (pw - 1) t) log(1 + exp(-x))).
    const bce = pv.flatMap((row, i) => row.map((v, j) => -w[j]! * (tv[i]![j]! * Math.log(v) + (1 - tv[i]![j]!) * Math.log(1 - v))));
    const withLogits = xv.flatMap((row, i) => row.map((v, j) => w[j]! * ((1 - tv[i]![j]!) * v + (1 + (pw[j]! - 1) * tv[i]![j]!) * Math.log1p(Math.exp(-v)))));
    const got = await host(nn.binaryCrossEntropy(p, t, { weight: fromData(ad, w), reduction: 'none' }));
    expect(mismatch(got, bce, 1e-5, 1e-5)).toBeUndefined();
    const gotLogits = await host(nn.binaryCrossEntropyWithLogits(logits, t, { weight: fromData(ad, w), posWeight: fromData(ad, pw), reduction: 'none' }));
    expect(mismatch(gotLogits, withLogits, 1e-5, 1e-5)).toBeUndefined();
    // A weight [2, 1] (per row) broadcasts too.
    const rowW = [2, 0.25];
    const gotRows = await host(nn.binaryCrossEntropyWithLogits(logits, t, { weight: fromData(ad, [[2], [0.25]]), reduction: 'none' }));
    const refRows = xv.flatMap((row, i) => row.map((v, j) => rowW[i]! * ((1 - tv[i]![j]!) * v + Math.log1p(Math.exp(-v)))));
    expect(mismatch(gotRows, refRows, 1e-5, 1e-5)).toBeUndefined();
  });
});
