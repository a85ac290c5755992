/**
 * Channel dropout (dropout1d / 2d / 3d), alphaDropout and featureAlphaDropout, functional and as
 * modules, on every test backend. Their masks are random, so these are properties: each channel is
 * all zero or exactly x / (1 - p) (alpha: one of torch's two affine maps), about p of the channels
 * drop (a loose binomial bound; the stream is seeded, so each run is the same), the gradient is the
 * same mask times the scale, the seed reproduces the mask, eval and p = 0 are the identity, p = 1
 * gives zeros, alpha dropout keeps a standard normal input near mean 0 and variance 1, and bad p or
 * ranks are typed errors naming the op.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type { Autodiff } from '../../../src/autodiff/autodiff.js';
import type { Backend } from '../../../src/backends/backend.js';
import { ArgumentError, ShapeError } from '../../../src/errors.js';
import * as nn from '../../../src/nn/index.js';
import { Distribution, fromData, random } from '../../../src/tensor/creation.js';
import type { Tensor } from '../../../src/tensor/tensor.js';
import { testBackends } from '../../autodiff/backends.js';
import { untyped } from '../../untyped.js';

const F = nn.functional;
const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

type AD = Autodiff<Backend>;
type T = Tensor<AD, 'float'>;
type Fn = (x: T, p: number, training: boolean) => T;
type Layer = nn.Module<AD> & { forward(x: T): T };

const vals = async (t: T): Promise<Float32Array> => (await t.toData()).values;
const size = (shape: readonly number[]): number => shape.reduce((a, d) => a * d, 1);
/** Nonzero values, so a dropped channel is told from a kept one by its output alone. */
const inputValues = (n: number): Float32Array => Float32Array.from({ length: n }, (_, i) => 0.5 + ((i * 7) % 13) / 4);
/** A fixed gradient weight. */
const weights = (n: number): Float32Array => Float32Array.from({ length: n }, (_, i) => ((i * 37 + 5) % 17) / 8 - 1);

const SELU_ALPHA = 1.7580993408473766;
const alphaA = (p: number): number => 1 / Math.sqrt((SELU_ALPHA * SELU_ALPHA * p + 1) * (1 - p));

interface Variant {
  readonly name: string;
  readonly fn: Fn;
  readonly module: (p: number) => Layer;
  /** Shapes with the number of leading dims that pick a channel (the rest share its draw). */
  readonly shapes: ReadonlyArray<readonly [readonly number[], number]>;
  /** A shape with many channels for the fraction check, and its leading dims. */
  readonly many: readonly [readonly number[], number];
  readonly badRanks: readonly number[];
}

const channelVariants: readonly Variant[] = [
  { name: 'dropout1d', fn: F.dropout1d, module: (p) => new nn.Dropout1d<AD>(p), shapes: [[[3, 5, 4], 2], [[5, 4], 1]], many: [[8, 250, 3], 2], badRanks: [1, 4] },
  { name: 'dropout2d', fn: F.dropout2d, module: (p) => new nn.Dropout2d<AD>(p), shapes: [[[2, 5, 3, 2], 2], [[5, 3, 2], 1]], many: [[8, 250, 2, 2], 2], badRanks: [2, 5] },
  { name: 'dropout3d', fn: F.dropout3d, module: (p) => new nn.Dropout3d<AD>(p), shapes: [[[2, 4, 2, 3, 2], 2], [[5, 2, 2, 3], 1]], many: [[4, 500, 1, 2, 2], 2], badRanks: [3, 6] },
];

/** Per channel (the first `lead` dims), whether every output of it is 0; checks each channel is all-or-nothing. */
function channelMask(y: Float32Array, shape: readonly number[], lead: number): boolean[] {
  const per = size(shape.slice(lead));
  const channels = size(shape.slice(0, lead));
  const dropped: boolean[] = [];
  for (let c = 0; c < channels; c++) {
    const zeros = y.subarray(c * per, (c + 1) * per).filter((v) => v === 0).length;
    expect(zeros === 0 || zeros === per, `channel ${c}: ${zeros} of ${per} zero`).toBe(true);
    dropped.push(zeros === per);
  }
  return dropped;
}

for (const { name, backend: b } of backends) {
  describe(`channel dropout on ${name}`, () => {
    for (const v of channelVariants) {
      it(`${v.name}: each channel all zero or x / (1 - p); the gradient is that mask times 1 / (1 - p)`, async () => {
        for (const [shape, lead] of v.shapes) {
          const p = 0.4;
          const xs = inputValues(size(shape));
          const x = fromData(b, xs, { shape }).requireGrad();
          b.seed(11);
          const y = v.fn(x, p, true);
          expect(y.shape).toEqual(shape);
          const out = await vals(y);
          const dropped = channelMask(out, shape, lead);
          const per = size(shape.slice(lead));
          out.forEach((o, i) => {
            if (!dropped[Math.floor(i / per)]) expect(Math.abs(o - xs[i]! / (1 - p))).toBeLessThanOrEqual(1e-6 * Math.abs(o));
          });
          const w = weights(out.length);
          const g = await vals(x.grad(y.mul(fromData(b, w, { shape })).sum().backward())!);
          g.forEach((gi, i) => expect(Math.abs(gi - (dropped[Math.floor(i / per)] ? 0 : w[i]! / (1 - p)))).toBeLessThanOrEqual(1e-6));
        }
      });

      it(`${v.name}: about p of the channels drop; the seed reproduces the mask; the module draws the same`, async () => {
        const [shape, lead] = v.many;
        const p = 0.3;
        const x = fromData(b, inputValues(size(shape)), { shape });
        b.seed(5);
        const first = await vals(v.fn(x, p, true));
        const dropped = channelMask(first, shape, lead).filter(Boolean).length;
        const n = size(shape.slice(0, lead));
        // Binomial(2000, 0.3): sd about 20.5, so 6 sd is about 123.
        expect(n).toBe(2000);
        expect(Math.abs(dropped - n * p)).toBeLessThan(125);
        b.seed(5);
        expect(await vals(v.fn(x, p, true))).toEqual(first);
        b.seed(5);
        expect(await vals(v.module(p).forward(x))).toEqual(first);
      });

      it(`${v.name}: eval, training false and p = 0 are the identity; p = 1 gives zeros with a zero gradient`, async () => {
        const [shape] = v.shapes[0]!;
        const x = fromData(b, inputValues(size(shape)), { shape }).requireGrad();
        expect(v.fn(x, 0.5, false)).toBe(x);
        expect(v.fn(x, 0, true)).toBe(x);
        const m = v.module(0.5);
        expect(m.training).toBe(true);
        m.eval();
        expect(m.forward(x)).toBe(x);
        const y = v.fn(x, 1, true);
        expect(Array.from(await vals(y)).every((o) => o === 0)).toBe(true);
        expect(Array.from(await vals(x.grad(y.sum().backward())!)).every((o) => o === 0)).toBe(true);
      });

      it(`${v.name}: bad p and bad ranks are typed errors naming the op`, () => {
        const [shape] = v.shapes[0]!;
        const x = fromData(b, inputValues(size(shape)), { shape });
        for (const p of [-0.1, 1.5, NaN, untyped<number>('0.5')]) {
          expect(() => v.fn(x, p, true)).toThrow(ArgumentError);
          expect(() => v.fn(x, p, true)).toThrow(new RegExp(`^${v.name}: dropout probability must be a number in \\[0, 1\\]`));
        }
        expect(() => v.fn(x, 0.5, untyped<boolean>(1))).toThrow(ArgumentError);
        for (const rank of v.badRanks) {
          const bad = fromData(b, new Float32Array(2 ** rank), { shape: Array<number>(rank).fill(2) });
          expect(() => v.fn(bad, 0.5, true)).toThrow(ShapeError);
          expect(() => v.fn(bad, 0.5, true)).toThrow(new RegExp(`^${v.name}: the input must be .* got rank ${rank}`));
          // The hint names channel dropouts that exist (1d, 2d, 3d).
          expect(() => v.fn(bad, 0.5, true)).toThrow(/hint: (dropout1d is for|use dropout[123]d or dropout[123]d for)/);
        }
        const layer = `Dropout${v.name.slice(-2)}`;
        expect(() => v.module(1.01)).toThrow(ArgumentError);
        expect(() => v.module(1.01)).toThrow(new RegExp(`^${layer}: dropout probability`));
      });
    }

    it('dropout2d reads a rank-3 input as unbatched [C, H, W] (one draw per channel)', async () => {
      const shape = [400, 2, 3];
      b.seed(3);
      const y = await vals(F.dropout2d(fromData(b, inputValues(size(shape)), { shape }), 0.5));
      const dropped = channelMask(y, shape, 1).filter(Boolean).length;
      expect(Math.abs(dropped - 200)).toBeLessThan(65);
    });

    const alphaVariants: ReadonlyArray<readonly [string, Fn, (p: number) => Layer, readonly number[], number]> = [
      ['alphaDropout', F.alphaDropout, (p) => new nn.AlphaDropout<AD>(p), [200, 200], 2],
      ['featureAlphaDropout', F.featureAlphaDropout, (p) => new nn.FeatureAlphaDropout<AD>(p), [40, 250, 4], 2],
    ];
    for (const [fname, fn, module, shape, lead] of alphaVariants) {
      it(`${fname}: kept a x + A a p, dropped -A a (1 - p) (torch's maps), per ${lead === shape.length ? 'element' : 'channel'}; gradient a where kept`, async () => {
        const p = 0.2;
        const a = alphaA(p);
        b.seed(21);
        const x = random(b, shape, Distribution.Normal(0, 1)).requireGrad();
        const xs = await vals(x);
        b.seed(9);
        const y = fn(x, p, true);
        const out = await vals(y);
        const low = -SELU_ALPHA * a * (1 - p);
        const per = size(shape.slice(lead));
        const kept = (i: number): boolean => Math.abs(out[i]! - (a * xs[i]! + SELU_ALPHA * a * p)) <= 1e-5;
        let drops = 0;
        let wrong = 0;
        for (let c = 0; c < out.length / per; c++) {
          const isKept = kept(c * per);
          if (!isKept) drops++;
          for (let i = c * per; i < (c + 1) * per; i++) if (isKept ? !kept(i) : Math.abs(out[i]! - low) > 1e-5) wrong++;
        }
        expect(wrong).toBe(0);
        const n = out.length / per;
        expect(Math.abs(drops - n * p)).toBeLessThan(6 * Math.sqrt(n * p * (1 - p)));
        // The point of alpha dropout: a standard normal input stays near mean 0, variance 1.
        const mean = out.reduce((s, o) => s + o, 0) / out.length;
        const variance = out.reduce((s, o) => s + (o - mean) ** 2, 0) / out.length;
        expect(Math.abs(mean)).toBeLessThan(0.05);
        expect(Math.abs(variance - 1)).toBeLessThan(0.08);
        const g = await vals(x.grad(y.sum().backward())!);
        expect(g.filter((gi, i) => Math.abs(gi - (kept(i) ? a : 0)) > 1e-6).length).toBe(0);
        // The module draws the same under the same seed.
        b.seed(9);
        expect(await vals(module(p).forward(x))).toEqual(out);
      });

      it(`${fname}: training defaults to false (as torch's function); eval and p = 0 are the identity; p = 1 zeros; errors`, async () => {
        const x = fromData(b, inputValues(12), { shape: [2, 3, 2] });
        expect(fn === F.alphaDropout ? F.alphaDropout(x) : F.featureAlphaDropout(x)).toBe(x);
        expect(fn(x, 0, true)).toBe(x);
        const m = module(0.3).eval();
        expect(m.forward(x)).toBe(x);
        expect(Array.from(await vals(fn(x, 1, true))).every((o) => o === 0)).toBe(true);
        expect(() => fn(x, 2, true)).toThrow(ArgumentError);
        expect(() => fn(x, 2, true)).toThrow(new RegExp(`^${fname}: dropout probability`));
      });
    }

    it('featureAlphaDropout needs rank 2 or more', () => {
      expect(() => F.featureAlphaDropout(fromData(b, [1, 2, 3]), 0.5, true)).toThrow(ShapeError);
      expect(() => F.featureAlphaDropout(fromData(b, [1, 2, 3]), 0.5, true)).toThrow(/^featureAlphaDropout: the input must be \[N, C, \*\] \(rank 2 or more\), got rank 1/);
    });
  });
}
