/**
 * The layers added after the 'layers' torch vectors (max-pool indices, maxUnpool, Bilinear,
 * localResponseNorm, lpPool, MultiheadAttention's kdim / vdim / bias_kv, convTranspose's
 * outputSize, EmbeddingBag, LSTM's projSize) refuse bad input with typed errors naming the op and
 * the shapes; their numbers are checked against torch in test/torch-vectors/layers2.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import * as NF from '../../src/nn/functional/index.js';
import * as nn from '../../src/nn/index.js';
import { fromData, zeros } from '../../src/tensor/creation.js';
import { thrown } from '../thrown.js';
import { untyped } from '../untyped.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());

function expectError(f: () => unknown, type: typeof ArgumentError | typeof ShapeError | typeof DTypeError, message: RegExp): void {
  const err = thrown(f);
  expect(err).toBeInstanceOf(type);
  expect(String(err)).toMatch(message);
}

const x4 = () => zeros(ad, [1, 2, 4, 4]);
const ints = (shape: number[], values: number[]) => fromData(ad, Int32Array.from(values), { shape });

describe('errors of the added layers', () => {
  it('max pools with indices and maxUnpool', () => {
    expectError(() => NF.maxPool2d(x4(), 2, untyped({ returnIndices: 'yes' })), ArgumentError, /maxPool2d: returnIndices must be true or false/);
    const { values, indices } = NF.maxPool2d(x4(), 2, { returnIndices: true });
    expect(indices.dtype).toBe('int32');
    expectError(() => NF.maxUnpool2d(values, indices.reshape([1, 2, 4]), 2), ShapeError, /maxUnpool2d: the input must be|maxUnpool2d: indices must have the input's shape/);
    expectError(() => NF.maxUnpool2d(values, indices.cast('float32').reshape([1, 2, 2, 2]) as never, 2), DTypeError, /maxUnpool2d: indices must be int32/);
    expectError(() => NF.maxUnpool2d(values, indices, 2, { outputSize: [6, 4] }), ShapeError, /maxUnpool2d: outputSize \[6, 4\] must be less than a stride from the default size \[4, 4\]/);
    expectError(() => NF.maxUnpool2d(values, indices, 2, { outputSize: [4] }), ArgumentError, /maxUnpool2d: outputSize must be \[H, W\] or \[N, C, H, W\]/);
    expectError(() => NF.maxUnpool1d(zeros(ad, [2, 3]), ints([2, 3], [0, 1, 2, 0, 1, 2]), 2, { outputSize: [1, 2] }), ArgumentError, /maxUnpool1d: outputSize must be a length, \[L\] or \[N, C, L\]/);
  });

  it('bilinear, localResponseNorm, lpPool', () => {
    const w = zeros(ad, [2, 3, 4]);
    expectError(() => NF.bilinear(zeros(ad, [5, 3]), zeros(ad, [5, 3]), w), ShapeError, /bilinear: input1 and input2 must be \[\.\.\., 3\] and \[\.\.\., 4\].*\[5, 3\], \[5, 3\], \[2, 3, 4\]/);
    expectError(() => NF.bilinear(zeros(ad, [5, 3]), zeros(ad, [4, 4]), w), ShapeError, /bilinear: input1 and input2/);
    expectError(() => NF.bilinear(zeros(ad, [5, 3]), zeros(ad, [5, 4]), w, zeros(ad, [3])), ShapeError, /bilinear: the bias must be \[2\]/);
    expectError(() => new nn.Bilinear(ad, 0, 2, 2), ArgumentError, /Bilinear: in1Features/);
    expectError(() => NF.localResponseNorm(zeros(ad, [2, 3]), 2), ShapeError, /localResponseNorm: the input must be \[N, C, \.\.\.\] \(rank 3 or more\), got rank 2/);
    expectError(() => NF.localResponseNorm(x4(), 0), ArgumentError, /localResponseNorm: size/);
    expectError(() => NF.lpPool2d(x4(), 0, 2), ArgumentError, /lpPool2d: normType must be a finite non-zero number/);
    expectError(() => NF.lpPool2d(x4(), 2, 2, untyped({ padding: 1 })), ArgumentError, /lpPool2d: takes no padding/);
    // A string normType is shown as one (it read "got 2" before); a padding left undefined is none.
    expectError(() => NF.lpPool2d(x4(), untyped('2'), 2), ArgumentError, /lpPool2d: normType must be a finite non-zero number, got "2" \(a string\)/);
    expect(NF.lpPool2d(x4(), 2, 2, untyped({ padding: undefined })).shape).toEqual([1, 2, 2, 2]);
    expect(NF.lpPool1d(zeros(ad, [1, 2, 4]), 2, 2, untyped({ padding: undefined })).shape).toEqual([1, 2, 2]);
    expectError(() => NF.lpPool1d(x4(), 2, 2), ShapeError, /lpPool1d: the input must be \[N, C, L\] or \[C, L\]/);
  });

  it('MultiheadAttention with kdim / vdim checks the key and value sizes', () => {
    const m = new nn.MultiheadAttention(ad, 4, 2, { kdim: 3, vdim: 2 });
    expect(m.inProjWeight).toBeUndefined();
    expect(m.kProjWeight!.shape).toEqual([3, 4]);
    expectError(() => m.forward(zeros(ad, [1, 2, 4]), zeros(ad, [1, 5, 4]), zeros(ad, [1, 5, 2])), ShapeError, /MultiheadAttention: query, key and value must be \[N, L, 4\], \[N, S, 3\], \[N, S, 2\]/);
    expectError(() => new nn.MultiheadAttention(ad, 4, 2, { kdim: 0 }), ArgumentError, /MultiheadAttention: kdim/);
    expectError(() => new nn.MultiheadAttention(ad, 4, 2, untyped({ addBiasKv: 1 })), ArgumentError, /MultiheadAttention: addBiasKv must be true or false, got 1/);
  });

  it('convTranspose outputSize out of reach', () => {
    const m = new nn.ConvTranspose2d(ad, 2, 2, 3, { stride: 2 });
    expectError(() => m.forward(zeros(ad, [1, 2, 3, 3]), [9, 7]), ShapeError, /convTranspose2d: outputSize \[9, 7\] is not reachable.*dim 0: 7 to 8/);
    expectError(() => m.forward(zeros(ad, [1, 2, 3, 3]), [1, 8]), ShapeError, /dim 0: 7 to 8/);
    expectError(() => NF.convTranspose2d(zeros(ad, [1, 2, 3, 3]), zeros(ad, [2, 2, 3, 3]), { stride: 2, outputPadding: 1, outputSize: [8, 8] }), ArgumentError, /convTranspose2d: give outputSize or outputPadding, not both/);
    expectError(() => NF.convTranspose1d(zeros(ad, [1, 2, 3]), zeros(ad, [2, 2, 3]), { stride: 2, outputSize: [1, 2, 3, 4] }), ArgumentError, /convTranspose1d: outputSize must be 1 positive integers \(or 3 with the input's leading dims\)/);
  });

  it('embeddingBag', () => {
    const w = zeros(ad, [5, 3]);
    const idx = ints([4], [0, 1, 2, 3]);
    expectError(() => NF.embeddingBag(idx, w), ArgumentError, /embeddingBag: 1-D indices need offsets/);
    expectError(() => NF.embeddingBag(ints([2, 2], [0, 1, 2, 3]), w, { offsets: ints([1], [0]) }), ArgumentError, /embeddingBag: offsets must not be given with 2-D indices/);
    expectError(() => NF.embeddingBag(idx, w, { offsets: ints([1], [0]), mode: untyped('avg') }), ArgumentError, /embeddingBag: mode must be 'sum', 'mean' or 'max', got "avg"/);
    expectError(() => NF.embeddingBag(idx, w, { offsets: ints([1], [0]), mode: 'mean', perSampleWeights: zeros(ad, [4]) }), ArgumentError, /embeddingBag: perSampleWeights work with mode 'sum' only/);
    expectError(() => NF.embeddingBag(idx, w, { offsets: ints([1], [0]), mode: 'sum', perSampleWeights: zeros(ad, [3]) }), ShapeError, /embeddingBag: perSampleWeights must have the indices' shape \[4\]/);
    expectError(() => NF.embeddingBag(idx, w, { offsets: ints([1], [0]), paddingIdx: 5 }), ArgumentError, /embeddingBag: paddingIdx must be an integer in \[-5, 5\)/);
    expectError(() => NF.embeddingBag(idx.cast('float32') as never, w, { offsets: ints([1], [0]) }), DTypeError, /embeddingBag: the indices must be int32/);
    // The offsets' dtype is a DTypeError (their rank a ShapeError), as the indices'.
    expectError(() => NF.embeddingBag(idx, w, { offsets: zeros(ad, [1]) as never }), DTypeError, /embeddingBag: offsets must be int32, got float32; dtypes: float32; hint: cast them/);
    expectError(() => NF.embeddingBag(idx, w, { offsets: ints([1, 1], [0]) }), ShapeError, /embeddingBag: offsets must be 1-D, got rank 2/);
  });

  it('LSTM projSize below hiddenSize', () => {
    expectError(() => new nn.LSTM(ad, 3, 4, { projSize: 4 }), ArgumentError, /LSTM: projSize must be an integer from 0 \(none\) to hiddenSize - 1 \(3\), got 4/);
    const m = new nn.LSTM(ad, 3, 4, { projSize: 2 });
    expectError(() => m.forward(zeros(ad, [1, 2, 3]), { h: zeros(ad, [1, 1, 4]) }), ShapeError, /LSTM: h must be \[1, 1, 2\]/);
    const y = m.forward(zeros(ad, [1, 2, 3]));
    expect([y.output.shape, y.h.shape, y.c.shape]).toEqual([[1, 2, 2], [1, 1, 2], [1, 1, 4]]);
  });
});
