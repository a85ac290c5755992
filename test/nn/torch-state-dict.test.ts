/**
 * loadTorchStateDict / saveTorchStateDict against safetensors files written here byte by byte
 * from the format's spec, with PyTorch's names and layouts, and outputs against float64
 * references computed from the PyTorch-layout weights.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../../src/errors.js';
import { Relu } from '../../src/nn/activation.js';
import { BatchNorm2d } from '../../src/nn/batch-norm.js';
import { Conv2d } from '../../src/nn/conv.js';
import { Flatten } from '../../src/nn/flatten.js';
import { LayerNorm } from '../../src/nn/layer-norm.js';
import { Linear } from '../../src/nn/linear.js';
import { LSTM } from '../../src/nn/rnn.js';
import { MaxPool2d } from '../../src/nn/pool.js';
import { Sequential } from '../../src/nn/sequential.js';
import { TransformerEncoderLayer } from '../../src/nn/transformer.js';
import { loadTorchStateDict, saveTorchStateDict, torchEntries } from '../../src/record/torch.js';
import { fromData } from '../../src/tensor/creation.js';
import { mismatch, randn, rng } from './conv-ref.js';

const cpu = new Autodiff(new Cpu({ threads: 0 }));
cpu.seed(13);
afterAll(() => cpu.close());

interface FileTensor {
  dtype: 'F32' | 'I64' | 'F16';
  shape: number[];
  values: number[];
}

/**
 * The safetensors layout: u64 little-endian header size N, N bytes of JSON
 * { name: { dtype, shape, data_offsets: [begin, end] } } (offsets into the data), then the data.
 */
function writeSafetensors(tensors: Record<string, FileTensor>): Uint8Array {
  const width = { F32: 4, I64: 8, F16: 2 } as const;
  const header: Record<string, unknown> = {};
  let offset = 0;
  for (const [name, t] of Object.entries(tensors)) {
    const bytes = t.values.length * width[t.dtype];
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + offset);
  const view = new DataView(out.buffer);
  view.setUint32(0, json.length, true);
  view.setUint32(4, 0, true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const t of Object.values(tensors)) {
    for (const v of t.values) {
      if (t.dtype === 'F32') view.setFloat32(at, v, true);
      else if (t.dtype === 'I64') view.setBigInt64(at, BigInt(v), true);
      at += width[t.dtype];
    }
  }
  return out;
}

/** Reads the header and data of a safetensors file, independently of the library's decoder. */
function readSafetensors(bytes: Uint8Array): Record<string, { dtype: string; shape: number[]; values: number[] }> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Number(view.getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + n))) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>;
  const out: Record<string, { dtype: string; shape: number[]; values: number[] }> = {};
  for (const [k, h] of Object.entries(header)) {
    if (k === '__metadata__') continue;
    const values: number[] = [];
    const w = h.dtype === 'I32' || h.dtype === 'F32' ? 4 : 8;
    for (let p = h.data_offsets[0]; p < h.data_offsets[1]; p += w) values.push(h.dtype === 'I32' ? view.getInt32(8 + n + p, true) : view.getFloat32(8 + n + p, true));
    out[k] = { dtype: h.dtype, shape: h.shape, values };
  }
  return out;
}

const f32 = (shape: number[], seed: number): FileTensor => ({ dtype: 'F32', shape, values: Array.from(randn(shape, rng(seed)).data) });

/** y = x Wᵀ + b with W [out, in] (torch's Linear), rows of x [n, in]. */
function linearRef(x: number[], w: number[], b: number[], n: number, inF: number, outF: number): number[] {
  const y: number[] = [];
  for (let i = 0; i < n; i++) for (let o = 0; o < outF; o++) {
    let s = b[o]!;
    for (let k = 0; k < inF; k++) s += x[i * inF + k]! * w[o * inF + k]!;
    y.push(s);
  }
  return y;
}

async function vals(t: { toData(): Promise<{ values: ArrayLike<number> }> }): Promise<number[]> {
  return Array.from((await t.toData()).values);
}

describe('loadTorchStateDict', () => {
  const mlpFile = () => ({ '0.weight': f32([4, 3], 1), '0.bias': f32([4], 2), '2.weight': f32([2, 4], 3), '2.bias': f32([2], 4) });
  const mlp = () => new Sequential(new Linear(cpu, 3, 4), new Relu(), new Linear(cpu, 4, 2));

  it('Sequential(Linear, ReLU, Linear): names, transposed weights, and the outputs PyTorch gives', async () => {
    const file = mlpFile();
    const model = mlp();
    expect(torchEntries(model).map((e) => `${e.name} -> ${e.key}`)).toEqual(['layers.0.weight -> 0.weight', 'layers.0.bias -> 0.bias', 'layers.2.weight -> 2.weight', 'layers.2.bias -> 2.bias']);
    const report = loadTorchStateDict(model, writeSafetensors(file));
    expect(report).toEqual({ loaded: ['0.weight', '0.bias', '2.weight', '2.bias'], missing: [], unexpected: [] });
    const x = Array.from(randn([5, 3], rng(9)).data);
    const h = linearRef(x, file['0.weight'].values, file['0.bias'].values, 5, 3, 4).map((v) => Math.max(0, v));
    const ref = linearRef(h, file['2.weight'].values, file['2.bias'].values, 5, 4, 2);
    const y = model.forward(fromData(cpu, Float32Array.from(x), { shape: [5, 3] }));
    expect(mismatch(await vals(y), ref)).toBeUndefined();
  });

  it('a small CNN (conv, BatchNorm with running stats and an int64 counter, pool, flatten, linear) in eval mode', async () => {
    const file: Record<string, FileTensor> = {
      '0.weight': f32([2, 1, 3, 3], 11),
      '0.bias': f32([2], 12),
      '1.weight': f32([2], 13),
      '1.bias': f32([2], 14),
      '1.running_mean': f32([2], 15),
      '1.running_var': { dtype: 'F32', shape: [2], values: [0.5, 1.7] },
      '1.num_batches_tracked': { dtype: 'I64', shape: [], values: [123] },
      '5.weight': f32([3, 8], 16),
      '5.bias': f32([3], 17),
    };
    const model = new Sequential(new Conv2d(cpu, 1, 2, 3, { padding: 1 }), new BatchNorm2d(cpu, 2), new Relu(), new MaxPool2d(2), new Flatten(), new Linear(cpu, 8, 3));
    loadTorchStateDict(model, writeSafetensors(file));
    model.eval();
    expect(await vals((model.layers[1] as BatchNorm2d<typeof cpu>).numBatchesTracked!.value)).toEqual([123]);
    const x = Array.from(randn([2, 1, 4, 4], rng(19)).data);
    // Reference, from the torch-layout arrays: conv (padding 1) -> BN (eval) -> ReLU -> 2x2 max -> flatten (C, H, W) -> linear.
    const v = (k: string) => file[k]!.values;
    const out: number[] = [];
    for (let n = 0; n < 2; n++) {
      const feat: number[] = [];
      for (let c = 0; c < 2; c++) {
        const map: number[][] = [];
        for (let i = 0; i < 4; i++) {
          map.push([]);
          for (let j = 0; j < 4; j++) {
            let s = v('0.bias')[c]!;
            for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) {
              const yy = i + a - 1;
              const xx = j + b - 1;
              if (yy >= 0 && yy < 4 && xx >= 0 && xx < 4) s += x[n * 16 + yy * 4 + xx]! * v('0.weight')[c * 9 + a * 3 + b]!;
            }
            const bn = ((s - v('1.running_mean')[c]!) / Math.sqrt(v('1.running_var')[c]! + 1e-5)) * v('1.weight')[c]! + v('1.bias')[c]!;
            map[i]!.push(Math.max(0, bn));
          }
        }
        for (let i = 0; i < 2; i++) for (let j = 0; j < 2; j++) feat.push(Math.max(map[2 * i]![2 * j]!, map[2 * i]![2 * j + 1]!, map[2 * i + 1]![2 * j]!, map[2 * i + 1]![2 * j + 1]!));
      }
      out.push(...linearRef(feat, v('5.weight'), v('5.bias'), 1, 8, 3));
    }
    const y = model.forward(fromData(cpu, Float32Array.from(x), { shape: [2, 1, 4, 4] }));
    expect(mismatch(await vals(y), out)).toBeUndefined();
  });

  it('strict by default: missing and unexpected keys are listed and nothing is loaded', async () => {
    const model = mlp();
    const before = await vals(model.layers[0]!.namedParams()[0]![1].value);
    const { ['2.bias']: _dropped, ...partial } = mlpFile();
    const bytes = writeSafetensors({ ...partial, 'extra.weight': f32([1], 5) });
    expect(() => loadTorchStateDict(model, bytes)).toThrow(ArgumentError);
    expect(() => loadTorchStateDict(model, bytes)).toThrow(/missing keys: 2.bias; unexpected keys: extra.weight\); nothing was loaded/);
    expect(await vals(model.layers[0]!.namedParams()[0]![1].value)).toEqual(before);
    // strict: false loads what fits and says what it skipped.
    const report = loadTorchStateDict(model, bytes, { strict: false });
    expect(report).toEqual({ loaded: ['0.weight', '0.bias', '2.weight'], missing: ['2.bias'], unexpected: ['extra.weight'] });
    expect(await vals(model.layers[0]!.namedParams()[0]![1].value)).not.toEqual(before);
  });

  it('a wrong shape is an error naming the key, both shapes and the layout, even when not strict, and loads nothing', async () => {
    const model = mlp();
    const before = await vals(model.layers[2]!.namedParams()[1]![1].value);
    const file = { ...mlpFile(), '0.weight': f32([3, 4], 1) };
    const load = () => loadTorchStateDict(model, writeSafetensors(file), { strict: false });
    expect(load).toThrow(ShapeError);
    expect(load).toThrow(/'0.weight' has shape \[3, 4\]; parameter 'layers.0.weight' \[3, 4\] needs \[4, 3\] in PyTorch's layout \(stored transposed here\)/);
    expect(await vals(model.layers[2]!.namedParams()[1]![1].value)).toEqual(before);
    expect(() => loadTorchStateDict(model, writeSafetensors({ ...mlpFile(), '0.bias': { dtype: 'I64', shape: [4], values: [1, 2, 3, 4] } }))).toThrow(DTypeError);
  });

  it('rename maps a file\'s names (a DataParallel "module." prefix)', () => {
    const prefixed = Object.fromEntries(Object.entries(mlpFile()).map(([k, t]) => [`module.${k}`, t]));
    const report = loadTorchStateDict(mlp(), writeSafetensors(prefixed), { rename: (k) => k.replace(/^module\./, '') });
    expect(report.loaded).toHaveLength(4);
  });

  it('knows PyTorch\'s names for LayerNorm, MultiheadAttention, TransformerEncoderLayer and LSTM', () => {
    const keys = (m: Parameters<typeof torchEntries>[0]) => torchEntries(m).map((e) => `${e.key}${e.layout ? ` (${e.layout})` : ''}`);
    expect(keys(new LayerNorm(cpu, 4))).toEqual(['weight', 'bias']);
    expect(keys(new TransformerEncoderLayer(cpu, 4, 2, { dimFeedforward: 8 }))).toEqual([
      'self_attn.in_proj_weight (transpose)', 'self_attn.in_proj_bias', 'self_attn.out_proj.weight (transpose)', 'self_attn.out_proj.bias',
      'linear1.weight (transpose)', 'linear1.bias', 'linear2.weight (transpose)', 'linear2.bias', 'norm1.weight', 'norm1.bias', 'norm2.weight', 'norm2.bias',
    ]);
    expect(keys(new LSTM(cpu, 3, 2, { numLayers: 2, bidirectional: true })).slice(0, 8)).toEqual([
      'weight_ih_l0 (transpose)', 'weight_ih_l0_reverse (transpose)', 'weight_ih_l1 (transpose)', 'weight_ih_l1_reverse (transpose)',
      'weight_hh_l0 (transpose)', 'weight_hh_l0_reverse (transpose)', 'weight_hh_l1 (transpose)', 'weight_hh_l1_reverse (transpose)',
    ]);
  });
});

describe('saveTorchStateDict', () => {
  it('writes PyTorch names and layouts, and loads back to the same outputs', async () => {
    const model = new Sequential(new Conv2d(cpu, 1, 2, 3), new BatchNorm2d(cpu, 2), new Flatten(), new Linear(cpu, 8, 3));
    model.forward(fromData(cpu, Float32Array.from(randn([2, 1, 4, 4], rng(3)).data), { shape: [2, 1, 4, 4] })).dispose();
    const bytes = await saveTorchStateDict(model);
    const file = readSafetensors(bytes);
    expect(Object.keys(file).sort()).toEqual(['0.bias', '0.weight', '1.bias', '1.num_batches_tracked', '1.running_mean', '1.running_var', '1.weight', '3.bias', '3.weight']);
    expect(file['3.weight']!.shape).toEqual([3, 8]);
    const ours = await vals((model.layers[3] as Linear<typeof cpu>).weight.value);
    // torch [out, in][o][i] = ours [in, out][i][o]
    expect(file['3.weight']!.values[2 * 8 + 5]).toBe(ours[5 * 3 + 2]);
    expect(file['1.num_batches_tracked']).toEqual({ dtype: 'I32', shape: [], values: [1] });
    expect(file['0.weight']!.shape).toEqual([2, 1, 3, 3]);
    const copy = new Sequential(new Conv2d(cpu, 1, 2, 3), new BatchNorm2d(cpu, 2), new Flatten(), new Linear(cpu, 8, 3));
    loadTorchStateDict(copy, bytes);
    model.eval();
    copy.eval();
    const x = fromData(cpu, Float32Array.from(randn([2, 1, 4, 4], rng(4)).data), { shape: [2, 1, 4, 4] });
    expect(await vals(copy.forward(x))).toEqual(await vals(model.forward(x)));
  });
});
