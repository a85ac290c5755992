/**
 * Bad arguments to nn's functionals, layers and losses are typed Switchyard errors at the call
 * that name the op (for untyped JavaScript callers too): missing tensors, oversized geometry,
 * malformed options, and errors that used to name an inner op (reshape, mul, random).
 */
import { afterAll, describe, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import * as nn from '../../src/nn/index.js';
import { fromData, ones } from '../../src/tensor/creation.js';
import { untyped } from '../untyped.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());
const F = nn.functional;
type T = ReturnType<typeof ones<typeof ad>>;
const missing = (v: null | undefined | number): T => untyped<T>(v);

const x4 = ones(ad, [1, 2, 5, 5]);
const w4 = ones(ad, [3, 2, 3, 3]);
const x3 = ones(ad, [1, 2, 7]);
const w3 = ones(ad, [3, 2, 3]);
const i32 = fromData(ad, new Int32Array([0, 1]));

function throws(f: () => unknown, type: typeof ArgumentError | typeof ShapeError | typeof DTypeError, message: RegExp): void {
  expect(f).toThrow(type);
  expect(f).toThrow(message);
}

describe('B1: a missing tensor is an ArgumentError naming the op and the argument', () => {
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['conv2d weight', () => F.conv2d(x4, missing(null)), /conv2d: weight must be a tensor, got null/],
    ['conv2d input', () => F.conv2d(missing(undefined), w4), /conv2d: input must be a tensor, got undefined/],
    ['conv1d bias', () => F.conv1d(x3, w3, { bias: untyped(3) }), /conv1d: bias must be a tensor or undefined, got 3/],
    ['convTranspose2d', () => F.convTranspose2d(missing(null), ones(ad, [2, 1, 3, 3])), /convTranspose2d: input must be a tensor/],
    ['convTranspose1d', () => F.convTranspose1d(x3, missing(null)), /convTranspose1d: weight must be a tensor/],
    ['maxPool2d', () => F.maxPool2d(missing(null), 2), /maxPool2d: input must be a tensor/],
    ['maxPool1d', () => F.maxPool1d(missing(null), 2), /maxPool1d: input must be a tensor/],
    ['avgPool2d', () => F.avgPool2d(missing(null), 2), /avgPool2d: input must be a tensor/],
    ['avgPool1d', () => F.avgPool1d(missing(null), 2), /avgPool1d: input must be a tensor/],
    ['adaptiveAvgPool2d', () => F.adaptiveAvgPool2d(missing(null), 2), /adaptiveAvgPool2d: input must be a tensor/],
    ['batchNorm', () => F.batchNorm(missing(null), undefined, undefined), /batchNorm: input must be a tensor/],
    ['batchNorm runningMean', () => F.batchNorm(x4, untyped(1), undefined), /batchNorm: runningMean must be a tensor or undefined/],
    ['groupNorm', () => F.groupNorm(missing(null), 1), /groupNorm: input must be a tensor/],
    ['layerNorm', () => F.layerNorm(missing(null), [5]), /layerNorm: input must be a tensor/],
    ['layerNorm shape undefined', () => F.layerNorm(ones(ad, [2, 3]), untyped(undefined)), /layerNorm: normalizedShape must be an array, got undefined/],
    ['rmsNorm shape 3', () => F.rmsNorm(ones(ad, [2, 3]), untyped(3)), /rmsNorm: normalizedShape must be an array, got 3/],
    ['rmsNorm', () => F.rmsNorm(missing(undefined), [3]), /rmsNorm: input must be a tensor/],
    ['dropout', () => F.dropout(missing(null), 0.5), /dropout: input must be a tensor/],
    ['silu', () => F.silu(missing(null)), /silu: input must be a tensor/],
    ['softplus', () => F.softplus(missing(null)), /softplus: input must be a tensor/],
    ['leakyRelu', () => F.leakyRelu(missing(null)), /leakyRelu: input must be a tensor/],
    ['scaledDotProductAttention', () => F.scaledDotProductAttention(missing(null), missing(null), missing(null)), /scaledDotProductAttention: query must be a tensor/],
    ['MultiheadAttention', () => new nn.MultiheadAttention(ad, 6, 2).forward(missing(null)), /MultiheadAttention: query must be a tensor/],
    ['LSTM', () => new nn.LSTM(ad, 3, 4).forward(missing(null)), /LSTM: input must be a tensor/],
    ['LSTM h', () => new nn.LSTM(ad, 3, 4).forward(ones(ad, [2, 5, 3]), { h: untyped(1) }), /LSTM: h must be a tensor or undefined/],
    ['GRU', () => new nn.GRU(ad, 3, 4).forward(missing(undefined)), /GRU: input must be a tensor/],
    ['BatchNorm1d', () => new nn.BatchNorm1d(ad, 3).forward(missing(null)), /BatchNorm1d: input must be a tensor/],
    ['GroupNorm', () => new nn.GroupNorm(ad, 1, 3).forward(missing(null)), /GroupNorm: input must be a tensor/],
    ['Conv2d', () => new nn.Conv2d(ad, 2, 2, 3).forward(missing(null)), /Conv2d: input must be a tensor/],
    ['ConvTranspose1d', () => new nn.ConvTranspose1d(ad, 2, 2, 3).forward(missing(null)), /ConvTranspose1d: input must be a tensor/],
    ['Relu', () => new nn.Relu().forward(missing(null)), /Relu: input must be a tensor/],
  ];
  test.each(cases)('%s', (_name, f, message) => throws(f, ArgumentError, message));
});

describe('B2: oversized geometry is a ShapeError naming the op and the sizes, before any host table', () => {
  test.each([
    ['adaptiveAvgPool2d 1e9', () => F.adaptiveAvgPool2d(x4, 1e9), /adaptiveAvgPool2d: the output \[1, 2, 1000000000, 1000000000\]/],
    ['adaptiveMaxPool2d 1e9', () => F.adaptiveMaxPool2d(x4, 1e9), /adaptiveMaxPool2d: the output \[1, 2, 1000000000, 1000000000\]/],
    ['conv2d padding 1e6', () => F.conv2d(x4, ones(ad, [1, 2, 1, 1]), { padding: 1e6 }), /conv2d: the window table \[1, 2000005, 2000005\]/],
    ['convTranspose2d stride 1e5', () => F.convTranspose2d(x4, ones(ad, [2, 1, 1, 1]), { stride: 1e5 }), /convTranspose2d: the window table \[1, 400001, 400001\]/],
  ] as Array<[string, () => unknown, RegExp]>)('%s', (_name, f, message) => throws(f, ShapeError, message));
});

describe('B3: silently accepted options are refused', () => {
  test.each([
    ['conv2d stride of 3', () => F.conv2d(x4, w4, { stride: untyped([1, 1, 1]) }), /conv2d: stride must be a number or a pair \[h, w\], got \[1,1,1\]/],
    ['conv2d dilation of 1', () => F.conv2d(x4, w4, { dilation: untyped([1]) }), /conv2d: dilation must be a number or a pair/],
    ['conv1d stride pair', () => F.conv1d(x3, w3, { stride: untyped([2, 2]) }), /conv1d: stride must be a positive integer, got \[2,2\]/],
    ['convTranspose2d padding of 3', () => F.convTranspose2d(x4, ones(ad, [2, 1, 3, 3]), { padding: untyped([0, 0, 0]) }), /convTranspose2d: padding must be a number or a pair/],
    ['maxPool2d kernel of 3', () => F.maxPool2d(x4, untyped([2, 2, 2])), /maxPool2d: kernelSize must be a number or a pair/],
    ['crossEntropy ignoreIndex 1.5', () => nn.crossEntropy(ones(ad, [2, 3]), i32, { ignoreIndex: 1.5 }), /crossEntropy: ignoreIndex must be an integer, got 1.5/],
    ['nllLoss ignoreIndex NaN', () => nn.nllLoss(ones(ad, [2, 3]), i32, { ignoreIndex: NaN }), /nllLoss: ignoreIndex must be an integer, got NaN/],
    ['avgPool2d divisorOverride 1.5', () => F.avgPool2d(x4, 2, { divisorOverride: 1.5 }), /avgPool2d: divisorOverride must be an integer >= 1, got 1.5/],
    ['avgPool2d divisorOverride 0', () => F.avgPool2d(x4, 2, { divisorOverride: 0 }), /avgPool2d: divisorOverride must be an integer >= 1, got 0/],
    ['scaledDotProductAttention scale NaN', () => F.scaledDotProductAttention(ones(ad, [2, 3, 4]), ones(ad, [2, 5, 4]), ones(ad, [2, 5, 3]), { scale: NaN }), /scaledDotProductAttention: scale must be a finite number > 0 or undefined/],
    ['scaledDotProductAttention scale -1', () => F.scaledDotProductAttention(ones(ad, [2, 3, 4]), ones(ad, [2, 5, 4]), ones(ad, [2, 5, 3]), { scale: -1 }), /scale must be a finite number > 0/],
    ["Dropout('0.5')", () => new nn.Dropout(untyped('0.5')), /Dropout: dropout probability must be a number in \[0, 1\], got "0.5" \(a string\)/],
    ['GroupNorm numChannels 0', () => new nn.GroupNorm(ad, 1, 0), /GroupNorm: numChannels must be an integer >= 1, got 0/],
    ['GroupNorm eps -1', () => new nn.GroupNorm(ad, 1, 2, { eps: -1 }), /GroupNorm: eps must be a finite number >= 0/],
    ['layerNorm eps NaN', () => F.layerNorm(x4, [5], { eps: NaN }), /layerNorm: eps must be a finite number >= 0/],
  ] as Array<[string, () => unknown, RegExp]>)('%s', (_name, f, message) => throws(f, ArgumentError, message));
});

describe('B4: errors name the op and the cause', () => {
  test.each([
    ['conv2d zero-size kernel', () => F.conv2d(x4, ones(ad, [3, 2, 0, 3])), ShapeError, /conv2d: the weight's kernel dims must be >= 1, got 0x3/],
    ['convTranspose2d zero-size kernel', () => F.convTranspose2d(x4, ones(ad, [2, 1, 3, 0])), ShapeError, /convTranspose2d: the weight's kernel dims must be >= 1, got 3x0/],
    ['MultiheadAttention embedDim 0', () => new nn.MultiheadAttention(ad, 0, 1), ArgumentError, /MultiheadAttention: embedDim must be an integer >= 1, got 0/],
    ['MultiheadAttention embedDim -6', () => new nn.MultiheadAttention(ad, -6, 2), ArgumentError, /MultiheadAttention: embedDim must be an integer >= 1, got -6/],
    ['TransformerEncoderLayer dModel 0', () => new nn.TransformerEncoderLayer(ad, 0, 1), ArgumentError, /TransformerEncoderLayer: dModel must be an integer >= 1, got 0/],
    ['groupNorm weight shape', () => F.groupNorm(x4, 1, { weight: ones(ad, [5]) }), ShapeError, /groupNorm: weight must be \[2\], got \[5\]/],
    ['layerNorm bias shape', () => F.layerNorm(x4, [5], { bias: ones(ad, [3]) }), ShapeError, /layerNorm: bias must be \[5\], got \[3\]/],
    ['rmsNorm weight shape', () => F.rmsNorm(x4, [5, 5], { weight: ones(ad, [5]) }), ShapeError, /rmsNorm: weight must be \[5, 5\], got \[5\]/],
    ['GroupNorm wrong channels', () => new nn.GroupNorm(ad, 1, 4).forward(x4), ShapeError, /GroupNorm: expects \[N, 4, \.\.\.\]/],
    ['MultiheadAttention 3-D mask', () => new nn.MultiheadAttention(ad, 6, 2).forward(ones(ad, [2, 3, 6]), ones(ad, [2, 4, 6]), ones(ad, [2, 4, 6]), { attnMask: fromData(ad, new Uint8Array(24), { shape: [2, 3, 4] }) }), ShapeError, /MultiheadAttention: attnMask must be \[3, 4\] or \[4, 3, 4\]/],
    ['MultiheadAttention 2-D mask', () => new nn.MultiheadAttention(ad, 6, 2).forward(ones(ad, [2, 3, 6]), ones(ad, [2, 4, 6]), ones(ad, [2, 4, 6]), { attnMask: ones(ad, [4, 3]) }), ShapeError, /MultiheadAttention: attnMask must be \[3, 4\]/],
    ['scaledDotProductAttention mask shape', () => F.scaledDotProductAttention(ones(ad, [2, 3, 4]), ones(ad, [2, 5, 4]), ones(ad, [2, 5, 3]), { attnMask: ones(ad, [4, 4]) }), ShapeError, /scaledDotProductAttention: attnMask must broadcast to the scores' shape \[2, 3, 5\]/],
    ['crossEntropy int logits', () => nn.crossEntropy(untyped(fromData(ad, new Int32Array(6), { shape: [2, 3] })), i32), DTypeError, /crossEntropy: takes float tensors, got int32/],
    ['nllLoss int log-probabilities', () => nn.nllLoss(untyped(fromData(ad, new Int32Array(6), { shape: [2, 3] })), i32), DTypeError, /nllLoss: takes float tensors, got int32/],
  ] as Array<[string, () => unknown, typeof ShapeError, RegExp]>)('%s', (_name, f, type, message) => throws(f, type, message));
});
