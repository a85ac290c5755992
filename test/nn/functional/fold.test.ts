/**
 * unfold / fold and channelShuffle beyond the torch vectors (test/torch-vectors/fold.test.ts):
 * fold(unfold(x)) counts each pixel's blocks, fold is unfold's adjoint (<unfold x, c> = <x, fold c>),
 * float16 inputs, and bad arguments as typed errors naming the op.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError, ShapeError } from '../../../src/errors.js';
import * as nn from '../../../src/nn/index.js';
import { fromData, ones } from '../../../src/tensor/creation.js';
import { testBackends } from '../../autodiff/backends.js';
import { untyped } from '../../untyped.js';

const F = nn.functional;
const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

const seq = (n: number, k = 1): Float32Array => Float32Array.from({ length: n }, (_, i) => (((i * 7 + k) % 11) - 5) / 4);

for (const { name, backend: b } of backends) {
  describe(`unfold / fold on ${name}`, () => {
    it('fold(unfold(ones)) counts the blocks covering each pixel (3x3 windows, padding 1: 4 at corners, 6 on edges, 9 inside)', async () => {
      const x = ones(b, [1, 1, 4, 4]);
      const y = F.fold(F.unfold(x, 3, { padding: 1 }), 4, 3, { padding: 1 });
      expect(Array.from((await y.toData()).values)).toEqual([4, 6, 6, 4, 6, 9, 9, 6, 6, 9, 9, 6, 4, 6, 6, 4]);
    });

    it('fold is the adjoint of unfold: <unfold x, c> = <x, fold c>', async () => {
      const opts = { stride: [2, 1] as const, padding: [1, 2] as const, dilation: [1, 2] as const };
      const x = fromData(b, seq(2 * 3 * 5 * 6), { shape: [2, 3, 5, 6] });
      const u = F.unfold(x, [2, 3], opts);
      const c = fromData(b, seq(u.size, 3), { shape: u.shape });
      const left = (await u.mul(c).sum().toData()).values[0]!;
      const right = (await x.mul(F.fold(c, [5, 6], [2, 3], opts)).sum().toData()).values[0]!;
      expect(Math.abs(left - right)).toBeLessThan(1e-4);
    });

    it('float16 inputs keep their dtype', async () => {
      const x = fromData(b, seq(2 * 4 * 4), { shape: [2, 4, 4] }).cast('float16');
      const u = F.unfold(x, 2, { stride: 2 });
      expect(u.dtype).toBe('float16');
      expect(u.shape).toEqual([8, 4]);
      const y = F.fold(u, 4, 2, { stride: 2 });
      expect(y.dtype).toBe('float16');
      expect(Array.from((await y.cast('float32').toData()).values)).toEqual(Array.from((await x.cast('float32').toData()).values));
    });

    it('bad arguments are typed errors naming the op', () => {
      const x = ones(b, [1, 2, 3, 3]);
      const cases: Array<[() => unknown, typeof ArgumentError | typeof ShapeError, RegExp]> = [
        [() => F.unfold(ones(b, [2, 3]), 2), ShapeError, /^unfold: the input must be \[N, C, H, W\] or \[C, H, W\] \(rank 3 or 4\), got rank 2/],
        [() => F.unfold(x, 4), ShapeError, /^unfold: the kernel 4x4 \(dilation 1x1\) leaves no block in the padded 3x3 plane/],
        [() => F.unfold(x, 2, { stride: 0 }), ArgumentError, /^unfold: stride must be a positive integer/],
        [() => F.unfold(x, untyped([2, 2, 2])), ArgumentError, /^unfold: kernelSize must be a number or a pair/],
        [() => F.unfold(x, 2, untyped({ kernel_size: 2 })), ArgumentError, /^unfold: unknown option 'kernel_size'/],
        [() => F.unfold(untyped(null), 2), ArgumentError, /^unfold: input must be a tensor/],
        [() => F.fold(ones(b, [1, 6, 4]), 3, 2), ShapeError, /^fold: the input's dim 1 \(6\) must be divisible by the kernel's size 2x2 = 4/],
        [() => F.fold(ones(b, [1, 8, 5]), 3, 2), ShapeError, /^fold: the input has 5 blocks \(its last dim\), the output size 3x3 makes 2x2 = 4/],
        [() => F.fold(ones(b, [8, 4, 1, 1]), 3, 2), ShapeError, /^fold: the input must be \[N, C kh kw, L\] or \[C kh kw, L\] \(rank 2 or 3\), got rank 4/],
        [() => F.fold(ones(b, [4, 4]), 0, 2), ArgumentError, /^fold: outputSize must be a positive integer/],
        [() => F.channelShuffle(ones(b, [1, 6, 2]), 4), ShapeError, /^channelShuffle: the channels \(6\) must be divisible by groups = 4/],
        [() => F.channelShuffle(ones(b, [2, 6]), 2), ShapeError, /^channelShuffle: the input must be \[N, C, \*\] \(rank 3 or more, as torch\), got rank 2/],
        [() => F.channelShuffle(ones(b, [1, 6, 2]), 0), ArgumentError, /^channelShuffle: groups must be an integer >= 1, got 0/],
        [() => new nn.Unfold(2, { padding: -1 }), ArgumentError, /^Unfold: padding must be a non-negative integer/],
        [() => new nn.Fold([2, 3], 0), ArgumentError, /^Fold: kernelSize must be a positive integer/],
        [() => new nn.ChannelShuffle(1.5), ArgumentError, /^ChannelShuffle: groups must be an integer >= 1, got 1.5/],
      ];
      for (const [f, type, message] of cases) {
        expect(f).toThrow(type);
        expect(f).toThrow(message);
      }
    });
  });
}
