/** MultiheadAttention, TransformerEncoderLayer, LSTM and GRU against float64 references written as loops. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import { MultiheadAttention } from '../../src/nn/attention.js';
import { scaledDotProductAttention } from '../../src/nn/functional/attention.js';
import { GRU, LSTM, RNN } from '../../src/nn/rnn.js';
import { TransformerEncoderLayer } from '../../src/nn/transformer.js';
import { fromData } from '../../src/tensor/creation.js';
import { Tensor } from '../../src/tensor/tensor.js';
import { untyped } from '../untyped.js';
import { checkCase, type AD, type F, type FnCase } from './check.js';
import { mismatch, randn, rng, type Nd } from './conv-ref.js';

const cpu = new Autodiff(new Cpu({ threads: 0 }));
const ad: AD = cpu;
ad.seed(21);
afterAll(() => cpu.close());

/** a [m, k] times b [k, n], flat row-major, in float64. */
function mm(a: ArrayLike<number>, b: ArrayLike<number>, m: number, k: number, n: number): Float64Array {
  const out = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) {
    let s = 0;
    for (let p = 0; p < k; p++) s += a[i * k + p]! * b[p * n + j]!;
    out[i * n + j] = s;
  }
  return out;
}
const sig = (v: number) => 1 / (1 + Math.exp(-v));

/** Multi-head attention for one batch element: x [L, E] -> [L, E]; `blocked(i, j)` masks query i from key j. */
function mhaRef(q: Float64Array, kv: Float64Array, l: number, s: number, e: number, h: number, win: ArrayLike<number>, bin: ArrayLike<number>, wout: ArrayLike<number>, bout: ArrayLike<number>, blocked: (i: number, j: number) => boolean): { out: Float64Array; weights: Float64Array } {
  const proj = (x: Float64Array, rows: number, part: number) => {
    const w = new Float64Array(e * e);
    for (let i = 0; i < e; i++) for (let j = 0; j < e; j++) w[i * e + j] = win[i * 3 * e + part * e + j]!;
    const y = mm(x, w, rows, e, e);
    for (let i = 0; i < rows; i++) for (let j = 0; j < e; j++) y[i * e + j] = y[i * e + j]! + bin[part * e + j]!;
    return y;
  };
  const Q = proj(q, l, 0);
  const K = proj(kv, s, 1);
  const V = proj(kv, s, 2);
  const d = e / h;
  const ctx = new Float64Array(l * e);
  const weights = new Float64Array(l * s);
  for (let head = 0; head < h; head++) {
    for (let i = 0; i < l; i++) {
      const scores = Array.from({ length: s }, (_, j) => {
        if (blocked(i, j)) return -Infinity;
        let dot = 0;
        for (let c = 0; c < d; c++) dot += Q[i * e + head * d + c]! * K[j * e + head * d + c]!;
        return dot / Math.sqrt(d);
      });
      const m = Math.max(...scores);
      const ex = scores.map((v) => Math.exp(v - m));
      const z = ex.reduce((a, b) => a + b, 0);
      for (let j = 0; j < s; j++) {
        weights[i * s + j] = weights[i * s + j]! + ex[j]! / z / h;
        for (let c = 0; c < d; c++) ctx[i * e + head * d + c] = ctx[i * e + head * d + c]! + (ex[j]! / z) * V[j * e + head * d + c]!;
      }
    }
  }
  const out = mm(ctx, wout, l, e, e);
  for (let i = 0; i < l; i++) for (let j = 0; j < e; j++) out[i * e + j] = out[i * e + j]! + bout[j]!;
  return { out, weights };
}

async function host(t: F): Promise<Float64Array> {
  return Float64Array.from((await t.toData()).values);
}

describe('scaledDotProductAttention', () => {
  const c: FnCase = {
    name: 'causal attention over [2, 3, 4] with gradients',
    shapes: [[2, 3, 4], [2, 3, 4], [2, 3, 2]],
    run: ([q, k, v]) => scaledDotProductAttention(q!, k!, v!, { isCausal: true }),
    ref: ([q, k, v]) => {
      const out = new Float64Array(12);
      for (let b = 0; b < 2; b++)
        for (let i = 0; i < 3; i++) {
          const sc = [0, 1, 2].map((j) => (j > i ? -Infinity : [0, 1, 2, 3].reduce((s, c2) => s + q!.data[b * 12 + i * 4 + c2]! * k!.data[b * 12 + j * 4 + c2]!, 0) / 2));
          const m = Math.max(...sc);
          const ex = sc.map((x) => Math.exp(x - m));
          const z = ex.reduce((a, b2) => a + b2, 0);
          for (let c2 = 0; c2 < 2; c2++) out[b * 6 + i * 2 + c2] = [0, 1, 2].reduce((s, j) => s + (ex[j]! / z) * v!.data[b * 6 + j * 2 + c2]!, 0);
        }
      return { shape: [2, 3, 2], data: out };
    },
  };
  it(c.name, async () => {
    await checkCase(ad, c, 400);
  });

  it('a bool mask is "may attend"; a float mask is added; errors name the op', async () => {
    const q = fromData(ad, [[1, 0], [0, 1]]);
    const v = fromData(ad, [[1, 2], [3, 4]]);
    const allow = fromData(ad, [[true, false], [true, true]]);
    const y = await host(scaledDotProductAttention(q, q, v, { attnMask: allow }));
    expect(Array.from(y.slice(0, 2))).toEqual([1, 2]);
    const add = fromData(ad, [[0, -1e9], [-1e9, 0]]);
    expect(Array.from(await host(scaledDotProductAttention(q, q, v, { attnMask: add })))).toEqual([1, 2, 3, 4]);
    expect(() => scaledDotProductAttention(q, fromData(ad, [[1, 2, 3]]), v)).toThrow(ShapeError);
    expect(() => scaledDotProductAttention(q, q, v, { attnMask: allow, isCausal: true })).toThrow(ArgumentError);
  });
});

describe('MultiheadAttention', () => {
  it('is initialised as PyTorch (xavier in-projection, zero biases) and names its parameters', async () => {
    const m = new MultiheadAttention(ad, 8, 2);
    expect(m.namedParams().map(([n, p]) => `${n} ${p.shape.join('x')}`)).toEqual(['inProjWeight 8x24', 'inProjBias 24', 'outProj.weight 8x8', 'outProj.bias 8']);
    const w = await host(m.inProjWeight!.value);
    expect(Math.max(...w.map(Math.abs))).toBeLessThanOrEqual(Math.sqrt(6 / 32));
    expect(Array.from(await host(m.outProj.bias!.value))).toEqual(new Array(8).fill(0));
    expect(() => new MultiheadAttention(ad, 8, 3)).toThrow(ArgumentError);
  });

  it('self-attention with a key padding mask and a causal mask matches the reference, with weights', async () => {
    const e = 4;
    const m = new MultiheadAttention(ad, e, 2);
    const next = rng(41);
    // Random biases, so the reference checks them too.
    m.inProjBias!.set(fromData(ad, Float32Array.from(randn([12], next).data)));
    m.outProj.bias!.set(fromData(ad, Float32Array.from(randn([4], next).data)));
    const x = randn([2, 3, e], next);
    const pad = [[false, false, true], [false, false, false]];
    const xt = fromData(ad, Float32Array.from(x.data), { shape: x.shape });
    const { output, weights } = m.forwardWithWeights(xt, xt, xt, { keyPaddingMask: fromData(ad, pad), isCausal: true });
    const [win, bin, wout, bout] = await Promise.all([m.inProjWeight!.value, m.inProjBias!.value, m.outProj.weight.value, m.outProj.bias!.value].map(host));
    const out = new Float64Array(24);
    const ws = new Float64Array(18);
    for (let b = 0; b < 2; b++) {
      const xb = x.data.slice(b * 12, (b + 1) * 12);
      const r = mhaRef(xb, xb, 3, 3, e, 2, win!, bin!, wout!, bout!, (i, j) => j > i || pad[b]![j]!);
      out.set(r.out, b * 12);
      ws.set(r.weights, b * 9);
    }
    expect(mismatch(await host(output), out)).toBeUndefined();
    expect(mismatch(await host(weights), ws)).toBeUndefined();
  });

  it('cross-attention with a float mask; gradients for the input and every parameter', async () => {
    const m = new MultiheadAttention(ad, 4, 1);
    const next = rng(43);
    const kv = randn([1, 2, 4], next);
    const mask = [0.5, -1, 0, 2, 1, -0.5];
    const c: FnCase = {
      name: 'cross-attention',
      shapes: [[1, 3, 4], [4, 12], [12], [4, 4], [4]],
      run: ([q, win, bin, wout, bout]) => {
        m.inProjWeight!.set(win!);
        m.inProjBias!.set(bin!);
        m.outProj.weight.set(wout!);
        m.outProj.bias!.set(bout!);
        const kvT = fromData(ad, Float32Array.from(kv.data), { shape: kv.shape });
        return m.forward(q!, kvT, kvT, { attnMask: fromData(ad, mask.map(Math.fround), { shape: [3, 2] }) });
      },
      ref: ([q, win, bin, wout, bout]) => {
        // The float mask shifts the scores: fold it in by reference arithmetic on the scores.
        const r = mhaMasked(q!.data, kv.data, win!.data, bin!.data, wout!.data, bout!.data, mask.map(Math.fround));
        return { shape: [1, 3, 4], data: r };
      },
    };
    await checkCase(ad, c, 402);
  });

  it('unbatched inputs, batchFirst: false and a float key padding mask give the batch-first results', async () => {
    const next = rng(47);
    const m = new MultiheadAttention(ad, 4, 2);
    m.inProjBias!.set(fromData(ad, Float32Array.from(randn([12], next).data)));
    const x = fromData(ad, Float32Array.from(randn([1, 3, 4], next).data), { shape: [1, 3, 4] });
    const kv = fromData(ad, Float32Array.from(randn([1, 2, 4], next).data), { shape: [1, 2, 4] });
    const pad = fromData(ad, [[false, true]]);
    const ref = m.forwardWithWeights(x, kv, kv, { keyPaddingMask: pad });
    const [out, ws] = await Promise.all([host(ref.output), host(ref.weights)]);
    // Unbatched [L, E] with a [S] mask: [L, E] and weights [L, S].
    const un = m.forwardWithWeights(x.squeeze(0), kv.squeeze(0), kv.squeeze(0), { keyPaddingMask: fromData(ad, [false, true]) });
    expect(un.output.shape).toEqual([3, 4]);
    expect(un.weights.shape).toEqual([3, 2]);
    expect(mismatch(await host(un.output), out)).toBeUndefined();
    expect(mismatch(await host(un.weights), ws)).toBeUndefined();
    // [L, N, E] with batchFirst false, the same parameters.
    const tm = new MultiheadAttention(ad, 4, 2, { batchFirst: false });
    for (const [[, p], [, q]] of tm.namedParams().map((e, i) => [e, m.namedParams()[i]!] as const)) p.set(q.value.clone());
    const y = tm.forward(x.swapDims(0, 1), kv.swapDims(0, 1), kv.swapDims(0, 1), { keyPaddingMask: pad });
    expect(y.shape).toEqual([3, 1, 4]);
    expect(mismatch(await host(y), out)).toBeUndefined();
    // A float mask is added to the scores: -Infinity is the bool mask's padding.
    const f = m.forward(x, kv, kv, { keyPaddingMask: fromData(ad, [[0, -Infinity]]) });
    expect(mismatch(await host(f), out)).toBeUndefined();
    expect(() => m.forward(x, kv, kv, { keyPaddingMask: untyped(fromData(ad, new Int32Array([0, 0]), { shape: [1, 2] })) })).toThrow(DTypeError);
    expect(() => new MultiheadAttention(ad, 4, 2, { batchFirst: untyped('no') })).toThrow(/MultiheadAttention: batchFirst must be/);
  });

  it('checks shapes', () => {
    const m = new MultiheadAttention(ad, 4, 2);
    expect(() => m.forward(fromData(ad, new Float32Array(12), { shape: [1, 3, 4] }), fromData(ad, new Float32Array(10), { shape: [1, 2, 5] }))).toThrow(/MultiheadAttention: query, key and value must be/);
  });
});

/** One head, L = 3 queries, S = 2 keys, E = 4, with an additive [3, 2] mask. */
function mhaMasked(q: Float64Array, kv: Float64Array, win: Float64Array, bin: Float64Array, wout: Float64Array, bout: Float64Array, mask: number[]): Float64Array {
  const e = 4;
  const proj = (x: Float64Array, rows: number, part: number) => {
    const y = new Float64Array(rows * e);
    for (let i = 0; i < rows; i++) for (let j = 0; j < e; j++) {
      let s = bin[part * e + j]!;
      for (let p = 0; p < e; p++) s += x[i * e + p]! * win[p * 3 * e + part * e + j]!;
      y[i * e + j] = s;
    }
    return y;
  };
  const Q = proj(q, 3, 0);
  const K = proj(kv, 2, 1);
  const V = proj(kv, 2, 2);
  const ctx = new Float64Array(12);
  for (let i = 0; i < 3; i++) {
    const sc = [0, 1].map((j) => [0, 1, 2, 3].reduce((s, c) => s + Q[i * e + c]! * K[j * e + c]!, 0) / 2 + mask[i * 2 + j]!);
    const m = Math.max(...sc);
    const ex = sc.map((v) => Math.exp(v - m));
    const z = ex[0]! + ex[1]!;
    for (let c = 0; c < e; c++) ctx[i * e + c] = (ex[0]! * V[c]! + ex[1]! * V[e + c]!) / z;
  }
  const out = mm(ctx, wout, 3, e, e);
  for (let i = 0; i < 3; i++) for (let j = 0; j < e; j++) out[i * e + j] = out[i * e + j]! + bout[j]!;
  return out;
}

describe('TransformerEncoderLayer', () => {
  for (const normFirst of [false, true]) {
    it(`${normFirst ? 'pre' : 'post'}-norm, eval mode: attention, ReLU feed-forward, residuals and LayerNorms as the reference`, async () => {
      const layer = new TransformerEncoderLayer(ad, 4, 2, { dimFeedforward: 6, normFirst }).eval();
      expect(layer.namedParams().map(([n]) => n)).toEqual([
        'selfAttn.inProjWeight', 'selfAttn.inProjBias', 'selfAttn.outProj.weight', 'selfAttn.outProj.bias',
        'linear1.weight', 'linear1.bias', 'linear2.weight', 'linear2.bias', 'norm1.gamma', 'norm1.beta', 'norm2.gamma', 'norm2.beta',
      ]);
      const next = rng(50);
      layer.norm1.gamma?.set(fromData(ad, Float32Array.from(randn([4], next).data)));
      layer.norm2.beta?.set(fromData(ad, Float32Array.from(randn([4], next).data)));
      const x = randn([1, 3, 4], next);
      const y = layer.forward(fromData(ad, Float32Array.from(x.data), { shape: x.shape }));
      const p = Object.fromEntries(await Promise.all(layer.namedParams().map(async ([n, q]) => [n, await host(q.value)] as const)));
      const ln = (v: Float64Array, g: Float64Array, b: Float64Array) => {
        const out = new Float64Array(v.length);
        for (let r = 0; r < v.length / 4; r++) {
          const row = v.slice(r * 4, r * 4 + 4);
          const mu = row.reduce((a, c) => a + c, 0) / 4;
          const va = row.reduce((a, c) => a + (c - mu) ** 2, 0) / 4;
          for (let j = 0; j < 4; j++) out[r * 4 + j] = ((row[j]! - mu) / Math.sqrt(va + 1e-5)) * g[j]! + b[j]!;
        }
        return out;
      };
      const sa = (v: Float64Array) => mhaRef(v, v, 3, 3, 4, 2, p['selfAttn.inProjWeight']!, p['selfAttn.inProjBias']!, p['selfAttn.outProj.weight']!, p['selfAttn.outProj.bias']!, () => false).out;
      const ff = (v: Float64Array) => {
        const h = mm(v, p['linear1.weight']!, 3, 4, 6).map((a, i) => Math.max(0, a + p['linear1.bias']![i % 6]!));
        return mm(h, p['linear2.weight']!, 3, 6, 4).map((a, i) => a + p['linear2.bias']![i % 4]!);
      };
      const add = (a: Float64Array, b: Float64Array) => a.map((v, i) => v + b[i]!);
      const n1 = (v: Float64Array) => ln(v, p['norm1.gamma']!, p['norm1.beta']!);
      const n2 = (v: Float64Array) => ln(v, p['norm2.gamma']!, p['norm2.beta']!);
      let ref: Float64Array;
      if (normFirst) {
        const h = add(x.data, sa(n1(x.data)));
        ref = add(h, ff(n2(h)));
      } else {
        const h = n1(add(x.data, sa(x.data)));
        ref = n2(add(h, ff(h)));
      }
      expect(mismatch(await host(y), ref)).toBeUndefined();
    });
  }
});

/** LSTM / GRU over [N, L, I], one layer and direction; weights [in, G H] as stored here. */
function rnnRef(kind: 'lstm' | 'gru', x: Nd, wih: Float64Array, whh: Float64Array, bih: Float64Array, bhh: Float64Array, hidden: number, reverse = false): { out: Float64Array; h: Float64Array; c: Float64Array } {
  const [n, l, inSize] = x.shape as [number, number, number];
  const g = kind === 'lstm' ? 4 : 3;
  const out = new Float64Array(n * l * hidden);
  const hF = new Float64Array(n * hidden);
  const cF = new Float64Array(n * hidden);
  for (let b = 0; b < n; b++) {
    let h = new Float64Array(hidden);
    let c = new Float64Array(hidden);
    for (let i = 0; i < l; i++) {
      const t = reverse ? l - 1 - i : i;
      const xt = x.data.slice((b * l + t) * inSize, (b * l + t + 1) * inSize);
      const xw = mm(xt, wih, 1, inSize, g * hidden).map((v, j) => v + bih[j]!);
      const hw = mm(h, whh, 1, hidden, g * hidden).map((v, j) => v + bhh[j]!);
      const nh = new Float64Array(hidden);
      const nc = new Float64Array(hidden);
      for (let j = 0; j < hidden; j++) {
        if (kind === 'lstm') {
          const gate = (k: number) => xw[k * hidden + j]! + hw[k * hidden + j]!;
          nc[j] = sig(gate(1)) * c[j]! + sig(gate(0)) * Math.tanh(gate(2));
          nh[j] = sig(gate(3)) * Math.tanh(nc[j]!);
        } else {
          const r = sig(xw[j]! + hw[j]!);
          const z = sig(xw[hidden + j]! + hw[hidden + j]!);
          const cand = Math.tanh(xw[2 * hidden + j]! + r * hw[2 * hidden + j]!);
          nh[j] = (1 - z) * cand + z * h[j]!;
        }
      }
      h = nh;
      c = nc;
      out.set(h, (b * l + t) * hidden);
    }
    hF.set(h, b * hidden);
    cF.set(c, b * hidden);
  }
  return { out, h: hF, c: cF };
}

describe('LSTM and GRU', () => {
  it('LSTM: output, final h and c, and gradients for the input and the weights', async () => {
    const lstm = new LSTM(ad, 3, 2);
    expect(lstm.namedParams().map(([n, p]) => `${n} ${p.shape.join('x')}`)).toEqual(['weightIh.0 3x8', 'weightHh.0 2x8', 'biasIh.0 8', 'biasHh.0 8']);
    const c: FnCase = {
      name: 'lstm',
      shapes: [[2, 4, 3], [3, 8], [2, 8], [8], [8]],
      run: ([x, wih, whh, bih, bhh]) => {
        lstm.weightIh[0]!.set(wih!);
        lstm.weightHh[0]!.set(whh!);
        lstm.biasIh[0]!.set(bih!);
        lstm.biasHh[0]!.set(bhh!);
        const { output, h, c: cell } = lstm.forward(x!);
        // Everything the layer returns, in one tensor: [output (16), h (4), c (4)].
        return Tensor.cat([output.reshape([-1]), h.reshape([-1]), cell.reshape([-1])]);
      },
      ref: ([x, wih, whh, bih, bhh]) => {
        const r = rnnRef('lstm', x!, wih!.data, whh!.data, bih!.data, bhh!.data, 2);
        return { shape: [24], data: Float64Array.from([...r.out, ...r.h, ...r.c]) };
      },
    };
    await checkCase(ad, c, 500);
  });

  it('GRU: output and final h, with gradients', async () => {
    const gru = new GRU(ad, 2, 3);
    const c: FnCase = {
      name: 'gru',
      shapes: [[1, 3, 2], [2, 9], [3, 9], [9], [9]],
      run: ([x, wih, whh, bih, bhh]) => {
        gru.weightIh[0]!.set(wih!);
        gru.weightHh[0]!.set(whh!);
        gru.biasIh[0]!.set(bih!);
        gru.biasHh[0]!.set(bhh!);
        const { output, h } = gru.forward(x!);
        return Tensor.cat([output.reshape([-1]), h.reshape([-1])]);
      },
      ref: ([x, wih, whh, bih, bhh]) => {
        const r = rnnRef('gru', x!, wih!.data, whh!.data, bih!.data, bhh!.data, 3);
        return { shape: [12], data: Float64Array.from([...r.out, ...r.h]) };
      },
    };
    await checkCase(ad, c, 501);
  });

  it("RNN (tanh and relu): output and final h against a float64 loop; an unbatched input is a batch of one", async () => {
    for (const act of ['tanh', 'relu'] as const) {
      const rnn = new RNN(ad, 2, 3, { nonlinearity: act });
      const x = randn([2, 4, 2], rng(61));
      const [wih, whh, bih, bhh] = await Promise.all([rnn.weightIh[0]!, rnn.weightHh[0]!, rnn.biasIh[0]!, rnn.biasHh[0]!].map((p) => host(p.value)));
      const f = act === 'tanh' ? Math.tanh : (v: number) => Math.max(v, 0);
      const out = new Float64Array(24);
      const hF = new Float64Array(6);
      for (let b = 0; b < 2; b++) {
        let h = new Float64Array(3);
        for (let t = 0; t < 4; t++) {
          const xw = mm(x.data.slice((b * 4 + t) * 2, (b * 4 + t + 1) * 2), wih!, 1, 2, 3);
          const hw = mm(h, whh!, 1, 3, 3);
          h = Float64Array.from({ length: 3 }, (_, j) => f(xw[j]! + bih![j]! + hw[j]! + bhh![j]!));
          out.set(h, (b * 4 + t) * 3);
        }
        hF.set(h, b * 3);
      }
      const xt = fromData(ad, Float32Array.from(x.data), { shape: x.shape });
      const y = rnn.forward(xt);
      expect(mismatch(await host(y.output), out), act).toBeUndefined();
      expect(mismatch(await host(y.h), hF), act).toBeUndefined();
      const one = rnn.forward(xt.narrow(0, 1, 1).squeeze(0), fromData(ad, new Float32Array(3), { shape: [1, 3] }));
      expect(one.output.shape).toEqual([4, 3]);
      expect(one.h.shape).toEqual([1, 3]);
      expect(mismatch(await host(one.output), out.slice(12))).toBeUndefined();
    }
    expect(() => new RNN(ad, 2, 3, { nonlinearity: untyped('sigmoid') })).toThrow(/RNN: nonlinearity must be 'tanh' or 'relu'/);
    expect(() => new LSTM(ad, 2, 3).forward(fromData(ad, new Float32Array(8), { shape: [4, 2] }), { h: fromData(ad, new Float32Array(3), { shape: [1, 1, 3] }) })).toThrow(/LSTM: h must be \[1, 3\] \(layers \* directions, hidden; the input is unbatched\)/);
  });

  it('bidirectional, two layers, time-major: shapes, and the reverse direction of layer 0 as the reference', async () => {
    const lstm = new LSTM(ad, 2, 3, { numLayers: 2, bidirectional: true, batchFirst: false });
    expect(lstm.weightIh[2]!.shape).toEqual([6, 12]);
    const x = randn([4, 1, 2], rng(60)); // [L, N, I]
    const xt = fromData(ad, Float32Array.from(x.data), { shape: x.shape });
    const { output, h, c } = lstm.forward(xt);
    expect(output.shape).toEqual([4, 1, 6]);
    expect(h.shape).toEqual([4, 1, 3]);
    expect(c.shape).toEqual([4, 1, 3]);
    const one = new LSTM(ad, 2, 3, { bidirectional: true });
    const [wih, whh, bih, bhh] = await Promise.all([one.weightIh[1]!, one.weightHh[1]!, one.biasIh[1]!, one.biasHh[1]!].map((p) => host(p.value)));
    const xb: Nd = { shape: [1, 4, 2], data: x.data };
    const ref = rnnRef('lstm', xb, wih!, whh!, bih!, bhh!, 3, true);
    const out = await host(one.forward(fromData(ad, Float32Array.from(x.data), { shape: [1, 4, 2] })).output);
    // Reverse direction: the last three features of every step.
    const reverse = Array.from({ length: 4 }, (_, t) => Array.from(out.slice(t * 6 + 3, t * 6 + 6))).flat();
    expect(mismatch(reverse, ref.out)).toBeUndefined();
    expect(() => lstm.forward(xt, { h: fromData(ad, new Float32Array(3), { shape: [1, 1, 3] }) })).toThrow(/LSTM: h must be \[4, 1, 3\]/);
  });
});
