/**
 * TransformerDecoderLayer, TransformerEncoder, TransformerDecoder, Transformer and
 * generateSquareSubsequentMask on every test backend, against a float64 reference written here
 * from torch's definitions (attention, LayerNorm and the feed-forward block as loops over float64
 * arrays): masks of every kind, key padding, causal flags, pre- and post-norm, gradients of inputs
 * and parameters against finite differences of the reference, torch's state_dict names, errors.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ArgumentError, ShapeError } from '../../src/errors.js';
import { LayerNorm, Transformer, TransformerDecoder, TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer, generateSquareSubsequentMask, type Module, type TransformerCall, type TransformerDecoderCall } from '../../src/nn/index.js';
import { loadTorchStateDict, saveTorchStateDict, torchEntries } from '../../src/record/index.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { testBackends } from '../autodiff/backends.js';
import { untyped } from '../untyped.js';
import { finiteDiff, mismatch, randoms, valuesAndGrads, type AD, type F } from '../unit/ref64-ops.js';

const backends = await testBackends();
afterAll(async () => {
  for (const b of backends) await b.close();
});

type P = Record<string, Float64Array>;
/** Additive score bias for query i, key j in head h of one batch element (-Infinity: blocked). */
type MaskFn = (i: number, j: number, h: number) => number;
const open: MaskFn = () => 0;

/** erf: its Maclaurin series below 3 (cancellation stays near 1e-14), Abramowitz-Stegun 7.1.26 (error < 1.5e-7) beyond. */
function erf(x: number): number {
  const a = Math.abs(x);
  if (a < 3) {
    let term = x;
    let sum = x;
    for (let n = 1; n < 80; n++) {
      term *= (-x * x) / n;
      sum += term / (2 * n + 1);
    }
    return (2 / Math.sqrt(Math.PI)) * sum;
  }
  const t = 1 / (1 + 0.3275911 * a);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a);
  return Math.sign(x) * y;
}
const act64 = { relu: (v: number) => Math.max(0, v), gelu: (v: number) => 0.5 * v * (1 + erf(v / Math.SQRT2)) };

/** x [rows, in] times w [in, out] (stored [in, out] here) plus b. */
function linear64(x: Float64Array, rows: number, inF: number, outF: number, w: Float64Array, b: Float64Array): Float64Array {
  const y = new Float64Array(rows * outF);
  for (let r = 0; r < rows; r++)
    for (let o = 0; o < outF; o++) {
      let s = b[o]!;
      for (let k = 0; k < inF; k++) s += x[r * inF + k]! * w[k * outF + o]!;
      y[r * outF + o] = s;
    }
  return y;
}

/** LayerNorm over the last dim (biased variance, eps inside the root). */
function ln64(x: Float64Array, e: number, g: Float64Array, b: Float64Array, eps = 1e-5): Float64Array {
  const y = new Float64Array(x.length);
  for (let r = 0; r < x.length / e; r++) {
    let mu = 0;
    for (let j = 0; j < e; j++) mu += x[r * e + j]! / e;
    let v = 0;
    for (let j = 0; j < e; j++) v += (x[r * e + j]! - mu) ** 2 / e;
    for (let j = 0; j < e; j++) y[r * e + j] = ((x[r * e + j]! - mu) / Math.sqrt(v + eps)) * g[j]! + b[j]!;
  }
  return y;
}

/** torch's multi-head attention for one batch element: q [L, E] over kv [S, E]; in_proj stored [E, 3E]. */
function mha64(q: Float64Array, kv: Float64Array, l: number, s: number, e: number, h: number, p: P, at: string, mask: MaskFn): Float64Array {
  const w = p[`${at}.inProjWeight`]!;
  const bias = p[`${at}.inProjBias`]!;
  const part = (x: Float64Array, rows: number, k: number) => {
    const wk = new Float64Array(e * e);
    for (let i = 0; i < e; i++) for (let j = 0; j < e; j++) wk[i * e + j] = w[i * 3 * e + k * e + j]!;
    return linear64(x, rows, e, e, wk, bias.slice(k * e, (k + 1) * e));
  };
  const Q = part(q, l, 0);
  const K = part(kv, s, 1);
  const V = part(kv, s, 2);
  const d = e / h;
  const ctx = new Float64Array(l * e);
  for (let head = 0; head < h; head++)
    for (let i = 0; i < l; i++) {
      const scores = Array.from({ length: s }, (_, j) => {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += Q[i * e + head * d + c]! * K[j * e + head * d + c]!;
        return dot / Math.sqrt(d) + mask(i, j, head);
      });
      const m = Math.max(...scores);
      const ex = scores.map((v) => Math.exp(v - m));
      const z = ex.reduce((a, v) => a + v, 0);
      for (let j = 0; j < s; j++) for (let c = 0; c < d; c++) ctx[i * e + head * d + c] = ctx[i * e + head * d + c]! + (ex[j]! / z) * V[j * e + head * d + c]!;
    }
  return linear64(ctx, l, e, e, p[`${at}.outProj.weight`]!, p[`${at}.outProj.bias`]!);
}

interface Cfg {
  e: number;
  h: number;
  ff: number;
  normFirst: boolean;
  act: 'relu' | 'gelu';
}

const add = (a: Float64Array, b: Float64Array) => a.map((v, i) => v + b[i]!);

function ff64(x: Float64Array, rows: number, c: Cfg, p: P, at: string): Float64Array {
  const hid = linear64(x, rows, c.e, c.ff, p[`${at}linear1.weight`]!, p[`${at}linear1.bias`]!).map(act64[c.act]);
  return linear64(hid, rows, c.ff, c.e, p[`${at}linear2.weight`]!, p[`${at}linear2.bias`]!);
}

/** torch's TransformerEncoderLayer.forward for one batch element x [L, E]; `at` the parameters' prefix ('' or 'layers.0.'). */
function encoderLayer64(x: Float64Array, l: number, c: Cfg, p: P, at: string, mask: MaskFn): Float64Array {
  const norm = (k: number, v: Float64Array) => ln64(v, c.e, p[`${at}norm${k}.gamma`]!, p[`${at}norm${k}.beta`]!);
  const sa = (v: Float64Array) => mha64(v, v, l, l, c.e, c.h, p, `${at}selfAttn`, mask);
  if (c.normFirst) {
    const y = add(x, sa(norm(1, x)));
    return add(y, ff64(norm(2, y), l, c, p, at));
  }
  const y = norm(1, add(x, sa(x)));
  return norm(2, add(y, ff64(y, l, c, p, at)));
}

/** torch's TransformerDecoderLayer.forward for one batch element: t [T, E] over memory m [S, E]. */
function decoderLayer64(t: Float64Array, m: Float64Array, tl: number, sl: number, c: Cfg, p: P, at: string, self: MaskFn, cross: MaskFn): Float64Array {
  const norm = (k: number, v: Float64Array) => ln64(v, c.e, p[`${at}norm${k}.gamma`]!, p[`${at}norm${k}.beta`]!);
  const sa = (v: Float64Array) => mha64(v, v, tl, tl, c.e, c.h, p, `${at}selfAttn`, self);
  const ca = (v: Float64Array) => mha64(v, m, tl, sl, c.e, c.h, p, `${at}multiheadAttn`, cross);
  if (c.normFirst) {
    const x = add(t, sa(norm(1, t)));
    const y = add(x, ca(norm(2, x)));
    return add(y, ff64(norm(3, y), tl, c, p, at));
  }
  const x = norm(1, add(t, sa(t)));
  const y = norm(2, add(x, ca(x)));
  return norm(3, add(y, ff64(y, tl, c, p, at)));
}

/** Each batch element of [N, L, E] data through `fn`, concatenated. */
function perBatch(data: readonly number[], n: number, rows: number, e: number, fn: (x: Float64Array, b: number) => Float64Array): number[] {
  const out: number[] = [];
  for (let b = 0; b < n; b++) out.push(...fn(Float64Array.from(data.slice(b * rows * e, (b + 1) * rows * e)), b));
  return out;
}

/** Every parameter set to seeded values in [-0.8, 0.8) (biases and norms too, so the reference checks them all). */
function randomise(m: Module<AD>, b: AD, seed: number): void {
  for (const [, p] of m.namedParams()) p.set(fromData(b, Float32Array.from(randoms(p.value.size, seed++, -0.8, 0.8)), { shape: p.shape }));
}

async function hostParams(m: Module<AD>): Promise<P> {
  return Object.fromEntries(await Promise.all(m.namedParams().map(async ([n, p]) => [n, Float64Array.from((await p.value.toData()).values)] as const)));
}

function param(m: Module<AD>, name: string): F {
  const found = m.namedParams().find(([n]) => n === name);
  if (!found) throw new Error(`no parameter ${name}`);
  return found[1].value;
}

const bool = (b: AD, rows: boolean[][]) => fromData(b, rows);
/** A [rows, cols] mask function from a bool grid (true: blocked) and/or additive values. */
function grid(blocked: boolean[][] | undefined, additive?: number[][]): MaskFn {
  return (i, j) => (blocked?.[i]![j] ? -Infinity : 0) + (additive?.[i]![j] ?? 0);
}
const padding = (pad: boolean[]): MaskFn => (_i, j) => (pad[j] ? -Infinity : 0);
const both = (a: MaskFn, c: MaskFn): MaskFn => (i, j, h) => a(i, j, h) + c(i, j, h);
const causal: MaskFn = (i, j) => (j > i ? -Infinity : 0);

const N = 2;
const T = 3;
const S = 4;
const E = 4;
const H = 2;
const FF = 6;

for (const tb of backends) {
  describe(`TransformerDecoderLayer on ${tb.name}`, () => {
    const b = tb.backend;
    const t = (v: readonly number[], shape: number[]) => fromData(b, Float32Array.from(v), { shape });

    interface Case {
      name: string;
      normFirst: boolean;
      act: 'relu' | 'gelu';
      call: (b: AD) => TransformerDecoderCall<AD>;
      self: (n: number) => MaskFn;
      cross: (n: number) => MaskFn;
    }
    const tgtBlocked = [[false, true, false], [false, false, true], [true, false, false]];
    const tgtPad = [[false, false, true], [false, false, false]];
    const memAdd = [randoms(S, 11, -1, 1), randoms(S, 12, -1, 1), randoms(S, 13, -1, 1)];
    const memPad = [[false, false, false, true], [true, false, false, false]];
    const perHead = randoms(N * H * T * T, 14, -1, 1);
    const cases: Case[] = [
      {
        name: 'post-norm, ReLU: bool tgtMask and float memoryMask, both key padding masks',
        normFirst: false,
        act: 'relu',
        call: (bb) => ({ tgtMask: bool(bb, tgtBlocked), memoryMask: fromData(bb, Float32Array.from(memAdd.flat()), { shape: [T, S] }), tgtKeyPaddingMask: bool(bb, tgtPad), memoryKeyPaddingMask: bool(bb, memPad) }),
        self: (n) => both(grid(tgtBlocked), padding(tgtPad[n]!)),
        cross: (n) => both(grid(undefined, memAdd), padding(memPad[n]!)),
      },
      {
        name: 'pre-norm, GELU: tgtIsCausal and memoryIsCausal',
        normFirst: true,
        act: 'gelu',
        call: () => ({ tgtIsCausal: true, memoryIsCausal: true }),
        self: () => causal,
        cross: () => causal,
      },
      {
        name: 'post-norm, GELU: a per-head float tgtMask [N * nhead, T, T]; tgtIsCausal beside a mask is a hint (the mask applies)',
        normFirst: false,
        act: 'gelu',
        call: (bb) => ({ tgtMask: fromData(bb, Float32Array.from(perHead), { shape: [N * H, T, T] }), tgtIsCausal: true, memoryKeyPaddingMask: bool(bb, memPad) }),
        self: (n) => (i, j, h) => perHead[((n * H + h) * T + i) * T + j]!,
        cross: (n) => padding(memPad[n]!),
      },
      { name: 'pre-norm, ReLU, no masks', normFirst: true, act: 'relu', call: () => ({}), self: () => open, cross: () => open },
    ];

    for (const [k, c] of cases.entries()) {
      it(`${c.name} match the float64 reference`, async () => {
        const layer = new TransformerDecoderLayer(b, E, H, { dimFeedforward: FF, normFirst: c.normFirst, activation: c.act }).eval();
        randomise(layer, b, 100 * k + 1);
        const tgt = randoms(N * T * E, 50 + k);
        const mem = randoms(N * S * E, 60 + k);
        const y = layer.forward(t(tgt, [N, T, E]), t(mem, [N, S, E]), c.call(b));
        const p = await hostParams(layer);
        const cfg: Cfg = { e: E, h: H, ff: FF, normFirst: c.normFirst, act: c.act };
        const ref = perBatch(tgt, N, T, E, (x, n) => decoderLayer64(x, Float64Array.from(mem.slice(n * S * E, (n + 1) * S * E)), T, S, cfg, p, '', c.self(n), c.cross(n)));
        expect(y.shape).toEqual([N, T, E]);
        expect(mismatch((await y.toData()).values, ref, 1e-4, 1e-4)).toBeUndefined();
        layer.dispose();
      });
    }

    it('gradients of tgt, memory and some parameters match finite differences of the reference', async () => {
      const layer = new TransformerDecoderLayer(b, E, H, { dimFeedforward: FF, activation: 'gelu' }).eval();
      randomise(layer, b, 900);
      const p0 = await hostParams(layer);
      const names = ['multiheadAttn.inProjWeight', 'selfAttn.outProj.bias', 'linear1.weight', 'norm3.gamma', 'norm2.beta'];
      const tgt = randoms(N * T * E, 901);
      const mem = randoms(N * S * E, 902);
      const tt = t(tgt, [N, T, E]).requireGrad();
      const mt = t(mem, [N, S, E]).requireGrad();
      const call = { tgtKeyPaddingMask: bool(b, tgtPad), memoryMask: bool(b, [[false, true, false, false], [false, false, false, false], [true, false, true, false]]) };
      const self = (n: number) => padding(tgtPad[n]!);
      const cross: MaskFn = grid([[false, true, false, false], [false, false, false, false], [true, false, true, false]]);
      const y = layer.forward(tt, mt, call);
      const w = randoms(N * T * E, 903, -1, 1);
      const { grads } = await valuesAndGrads(b, y, [tt, mt, ...names.map((n) => param(layer, n))], w);
      const cfg: Cfg = { e: E, h: H, ff: FF, normFirst: false, act: 'gelu' };
      const ref = ([tv, mv, ...ps]: number[][]) => {
        const p: P = { ...p0, ...Object.fromEntries(names.map((n, i) => [n, Float64Array.from(ps[i]!)])) };
        return perBatch(tv!, N, T, E, (x, n) => decoderLayer64(x, Float64Array.from(mv!.slice(n * S * E, (n + 1) * S * E)), T, S, cfg, p, '', self(n), cross));
      };
      const numeric = finiteDiff(ref, [tgt, mem, ...names.map((n) => [...p0[n]!])], w);
      ['tgt', 'memory', ...names].forEach((n, i) => {
        expect(grads[i], n).toBeDefined();
        expect(mismatch(grads[i]!, numeric[i]!, 2e-3, 2e-3), n).toBeUndefined();
      });
      for (const v of [tt, mt, y]) v.dispose();
      layer.dispose();
    });

    it('dropout acts only while training; eval is deterministic', async () => {
      const layer = new TransformerDecoderLayer(b, E, H, { dimFeedforward: FF, dropout: 0.5 });
      const x = t(randoms(N * T * E, 5), [N, T, E]);
      const m = t(randoms(N * S * E, 6), [N, S, E]);
      const train = (await layer.forward(x, m).toData()).values;
      layer.eval();
      const a = (await layer.forward(x, m).toData()).values;
      const c = (await layer.forward(x, m).toData()).values;
      expect(Array.from(a)).toEqual(Array.from(c));
      expect(Array.from(train)).not.toEqual(Array.from(a));
      layer.dispose();
    });
  });

  describe(`TransformerEncoder, TransformerDecoder and Transformer on ${tb.name}`, () => {
    const b = tb.backend;
    const t = (v: readonly number[], shape: number[]) => fromData(b, Float32Array.from(v), { shape });

    it('stacks are deep copies: equal starting values, fresh ids, separate storage', async () => {
      const layer = new TransformerEncoderLayer(b, E, H, { dimFeedforward: FF });
      const enc = new TransformerEncoder(layer, 3);
      const ids = enc.namedParams().map(([, p]) => p.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(layer.namedParams().some(([, p]) => ids.includes(p.id))).toBe(false);
      const first = await hostParams(enc.layers[0]!);
      const third = await hostParams(enc.layers[2]!);
      expect(third).toEqual(first);
      enc.layers[0]!.linear1.weight.set(fromData(b, new Float32Array(E * FF), { shape: [E, FF] }));
      expect(await hostParams(enc.layers[1]!)).toEqual(first);
      layer.dispose();
      enc.dispose();
    });

    it('TransformerEncoder (with a final norm, causal) and TransformerDecoder (without) match the stacked reference', async () => {
      const cfg: Cfg = { e: E, h: H, ff: FF, normFirst: true, act: 'relu' };
      const el = new TransformerEncoderLayer(b, E, H, { dimFeedforward: FF, normFirst: true });
      const enc = new TransformerEncoder(el, 2, { norm: new LayerNorm(b, E) }).eval();
      randomise(enc, b, 200);
      const src = randoms(N * S * E, 201);
      const pad = [[false, true, false, false], [false, false, false, false]];
      const y = enc.forward(t(src, [N, S, E]), { isCausal: true, srcKeyPaddingMask: bool(b, pad) });
      const p = await hostParams(enc);
      const ref = perBatch(src, N, S, E, (x, n) => {
        let v = x;
        for (const at of ['layers.0.', 'layers.1.']) v = encoderLayer64(v, S, cfg, p, at, both(causal, padding(pad[n]!)));
        return ln64(v, E, p['norm.gamma']!, p['norm.beta']!);
      });
      expect(mismatch((await y.toData()).values, ref, 1e-4, 1e-4)).toBeUndefined();

      const dl = new TransformerDecoderLayer(b, E, H, { dimFeedforward: FF });
      const dec = new TransformerDecoder(dl, 2).eval();
      randomise(dec, b, 300);
      const tgt = randoms(N * T * E, 301);
      const mem = randoms(N * S * E, 302);
      const z = dec.forward(t(tgt, [N, T, E]), t(mem, [N, S, E]), { tgtIsCausal: true });
      const q = await hostParams(dec);
      const dcfg: Cfg = { ...cfg, normFirst: false };
      const zref = perBatch(tgt, N, T, E, (x, n) => {
        let v = x;
        const m = Float64Array.from(mem.slice(n * S * E, (n + 1) * S * E));
        for (const at of ['layers.0.', 'layers.1.']) v = decoderLayer64(v, m, T, S, dcfg, q, at, causal, open);
        return v;
      });
      expect(mismatch((await z.toData()).values, zref, 1e-4, 1e-4)).toBeUndefined();
      for (const m of [el, enc, dl, dec]) m.dispose();
    });

    it('Transformer: xavier-uniform rank-2 parameters, torch\'s names, forward as encoder then decoder with final norms', async () => {
      const model = new Transformer(b, { dModel: E, nhead: H, numEncoderLayers: 2, numDecoderLayers: 1, dimFeedforward: FF, activation: 'gelu' }).eval();
      const keys = torchEntries(model).map((e) => e.key);
      expect(keys.length).toBe(2 * 12 + 2 + 1 * 18 + 2);
      expect(keys).toContain('encoder.layers.1.self_attn.in_proj_weight');
      expect(keys).toContain('encoder.norm.weight');
      expect(keys).toContain('decoder.layers.0.multihead_attn.out_proj.bias');
      expect(keys).toContain('decoder.layers.0.norm3.bias');
      expect(keys.at(-1)).toBe('decoder.norm.bias');
      const p0 = await hostParams(model);
      for (const [name, p] of model.namedParams()) {
        if (p.value.rank !== 2) continue;
        const bound = Math.sqrt(6 / (p.shape[0]! + p.shape[1]!));
        expect(Math.max(...p0[name]!.map(Math.abs)), name).toBeLessThanOrEqual(bound);
      }
      // Re-drawn per layer (torch's _reset_parameters), unlike a bare stack's copies.
      expect(p0['encoder.layers.0.linear1.weight']).not.toEqual(p0['encoder.layers.1.linear1.weight']);

      randomise(model, b, 400);
      const src = randoms(N * S * E, 401);
      const tgt = randoms(N * T * E, 402);
      const srcPad = [[false, false, true, false], [false, false, false, false]];
      const call: TransformerCall<AD> = { srcKeyPaddingMask: bool(b, srcPad), memoryKeyPaddingMask: bool(b, srcPad), tgtMask: Transformer.generateSquareSubsequentMask(b, T), tgtIsCausal: true };
      const y = model.forward(t(src, [N, S, E]), t(tgt, [N, T, E]), call);
      const p = await hostParams(model);
      const cfg: Cfg = { e: E, h: H, ff: FF, normFirst: false, act: 'gelu' };
      const ref = perBatch(tgt, N, T, E, (x, n) => {
        let mem: Float64Array = Float64Array.from(src.slice(n * S * E, (n + 1) * S * E));
        for (const at of ['encoder.layers.0.', 'encoder.layers.1.']) mem = encoderLayer64(mem, S, cfg, p, at, padding(srcPad[n]!));
        mem = ln64(mem, E, p['encoder.norm.gamma']!, p['encoder.norm.beta']!);
        const v = decoderLayer64(x, mem, T, S, cfg, p, 'decoder.layers.0.', causal, padding(srcPad[n]!));
        return ln64(v, E, p['decoder.norm.gamma']!, p['decoder.norm.beta']!);
      });
      const got = (await y.toData()).values;
      expect(mismatch(got, ref, 1e-4, 1e-4)).toBeUndefined();

      // torch's state_dict round trip: a fresh model loaded from the saved one computes the same.
      const copy = new Transformer(b, { dModel: E, nhead: H, numEncoderLayers: 2, numDecoderLayers: 1, dimFeedforward: FF, activation: 'gelu' }).eval();
      const report = loadTorchStateDict(copy, await saveTorchStateDict(model));
      expect(report.loaded).toHaveLength(keys.length);
      const y2 = copy.forward(t(src, [N, S, E]), t(tgt, [N, T, E]), call);
      expect(Array.from((await y2.toData()).values)).toEqual(Array.from(got));
      model.dispose();
      copy.dispose();
    });

    it('generateSquareSubsequentMask: 0 on and below the diagonal, -Infinity above', async () => {
      const m = generateSquareSubsequentMask(b, 3);
      expect(m.shape).toEqual([3, 3]);
      expect(Array.from((await m.toData()).values)).toEqual([0, -Infinity, -Infinity, 0, 0, -Infinity, 0, 0, 0]);
      const h = generateSquareSubsequentMask(b, 2, { dtype: 'float16' });
      expect(h.dtype).toBe('float16');
      for (const v of [m, h]) v.dispose();
    });
  });
}

describe('transformer errors', () => {
  const b = backends[0]!.backend;
  it('typed errors naming the module, the shapes and what to do, for typed and untyped callers', () => {
    const layer = new TransformerDecoderLayer(b, 4, 2, { dimFeedforward: 6 });
    const x = fromData(b, new Float32Array(24), { shape: [2, 3, 4] });
    const m = fromData(b, new Float32Array(16), { shape: [1, 4, 4] });
    const flat = fromData(b, new Float32Array(12), { shape: [3, 4] });
    expect(() => layer.forward(x, m)).toThrow(/TransformerDecoderLayer: tgt and memory must be \[N, L, 4\] and \[N, S, 4\] with one batch size N; shapes: \[2, 3, 4\], \[1, 4, 4\]/);
    expect(() => layer.forward(flat, m)).toThrow(ShapeError);
    expect(() => layer.forward(x, untyped<Tensor<AD, 'float'>>(null))).toThrow(/TransformerDecoderLayer: memory must be a tensor/);
    expect(() => layer.forward(x, x, untyped({ tgt_mask: null }))).toThrow(/unknown option 'tgt_mask'/);
    expect(() => new TransformerDecoderLayer(b, 0, 1)).toThrow(/TransformerDecoderLayer: dModel must be an integer >= 1, got 0/);
    expect(() => new TransformerDecoderLayer(b, 6, 4)).toThrow(ArgumentError);
    expect(() => new TransformerEncoder(untyped<TransformerEncoderLayer<AD>>(layer), 2)).toThrow(/TransformerEncoder: the first argument must be a TransformerEncoderLayer/);
    expect(() => new TransformerDecoder(layer, -1)).toThrow(/numLayers must be an integer >= 0/);
    expect(() => new TransformerDecoder(layer, 1, { norm: untyped('layernorm') })).toThrow(/norm must be a module/);
    const tr = new Transformer(b, { dModel: 4, nhead: 2, numEncoderLayers: 1, numDecoderLayers: 1, dimFeedforward: 6 });
    expect(() => tr.forward(x, fromData(b, new Float32Array(30), { shape: [2, 3, 5] }))).toThrow(/Transformer: src and tgt must be/);
    expect(() => new Transformer(b, untyped({ d_model: 4 }))).toThrow(/unknown option 'd_model'/);
    expect(() => generateSquareSubsequentMask(b, -1)).toThrow(ArgumentError);
    for (const v of [x, m, flat]) v.dispose();
    layer.dispose();
    tr.dispose();
  });
});
