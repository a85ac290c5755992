/** Safetensors: a file laid out byte by byte from the format's description, our writer's layout, round trips, bad files. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, DTypeError } from '../../src/errors.js';
import { Relu } from '../../src/nn/activation.js';
import { Linear } from '../../src/nn/linear.js';
import { Sequential } from '../../src/nn/sequential.js';
import { loadModule, saveModule, safetensorsToRecord } from '../../src/record/module.js';
import { decodeSafetensors, encodeSafetensors } from '../../src/record/safetensors.js';
import { encodeHalves } from '../../src/ir/half.js';
import { fromData } from '../../src/tensor/creation.js';

const ascii = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
const u64le = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >> 24) & 0xff, 0, 0, 0, 0];

/** A file as another writer would lay it out: header order unlike ours, unpadded, every dtype we read. */
function foreignFile(header: string, data: number[]): Uint8Array {
  return Uint8Array.from([...u64le(header.length), ...ascii(header), ...data]);
}

const HEADER =
  '{"__metadata__":{"format":"pt"},' +
  '"ints":{"dtype":"I32","shape":[3],"data_offsets":[16,28]},' +
  '"weight":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},' +
  '"mask":{"dtype":"BOOL","shape":[2],"data_offsets":[28,30]},' +
  '"half":{"dtype":"F16","shape":[3],"data_offsets":[30,36]},' +
  '"brain":{"dtype":"BF16","shape":[2],"data_offsets":[36,40]},' +
  '"long":{"dtype":"I64","shape":[1],"data_offsets":[40,48]},' +
  '"empty":{"dtype":"F32","shape":[0,3],"data_offsets":[48,48]}}';
const DATA = [
  // weight F32: 1.0, -2.5, 0.5, 3.0
  0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x20, 0xc0, 0x00, 0x00, 0x00, 0x3f, 0x00, 0x00, 0x40, 0x40,
  // ints I32: 7, -1, 256
  0x07, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x01, 0x00, 0x00,
  // mask BOOL: true, false
  0x01, 0x00,
  // half F16: 1.0 (0x3c00), -2.0 (0xc000), 65504 (0x7bff, the largest half)
  0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b,
  // brain BF16: 1.0 (0x3f80), -0.5 (0xbf00)
  0x80, 0x3f, 0x00, 0xbf,
  // long I64: -3
  0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
];

describe('reading safetensors', () => {
  const cpu = new Cpu({ threads: 0 });
  afterAll(() => cpu.close());

  it('reads a file built from the format description', () => {
    const { tensors, metadata } = decodeSafetensors(foreignFile(HEADER, DATA));
    expect(metadata).toEqual({ format: 'pt' });
    expect(tensors.weight).toEqual({ dtype: 'float32', shape: [2, 2], data: Float32Array.from([1, -2.5, 0.5, 3]) });
    expect(tensors.ints).toEqual({ dtype: 'int32', shape: [3], data: Int32Array.from([7, -1, 256]) });
    expect(tensors.mask).toEqual({ dtype: 'bool', shape: [2], data: Uint8Array.from([1, 0]) });
    // F16 stays float16: its bit patterns, as in the file.
    expect(tensors.half).toEqual({ dtype: 'float16', shape: [3], data: Uint16Array.from([0x3c00, 0xc000, 0x7bff]) });
    expect(Array.from(tensors.brain!.data)).toEqual([1, -0.5]);
    expect(tensors.long).toEqual({ dtype: 'int32', shape: [1], data: Int32Array.from([-3]) });
    expect(tensors.empty!.shape).toEqual([0, 3]);
  });

  it('widens F16 to float32 on request', () => {
    const { tensors } = decodeSafetensors(foreignFile(HEADER, DATA), { float16: 'float32' });
    expect(tensors.half).toEqual({ dtype: 'float32', shape: [3], data: Float32Array.from([1, -2, 65504]) });
  });

  it('round-trips float16 tensors bit for bit (subnormals, infinities, NaN payloads, odd lengths)', () => {
    const bits = Uint16Array.from([0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0x7bff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfe37, 0x3555]);
    const file = encodeSafetensors({ h: { dtype: 'float16', shape: [bits.length], data: bits }, w: { dtype: 'float32', shape: [1], data: Float32Array.from([2]) } });
    const header = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + Number(new DataView(file.buffer).getBigUint64(0, true)))));
    expect(header.h.dtype).toBe('F16');
    const back = decodeSafetensors(file).tensors.h!;
    expect(back.dtype).toBe('float16');
    expect(Array.from(back.data)).toEqual(Array.from(bits));
    expect(encodeSafetensors(decodeSafetensors(file).tensors)).toEqual(file);
  });

  it('round-trips an F16 file through a float16 tensor bit for bit', async () => {
    const bits = Uint16Array.from([0x0000, 0x8000, 0x0001, 0x83ff, 0x0400, 0x3c00, 0x3555, 0x7bff, 0x7c00, 0xfc00, 0xc1a3]);
    const file = encodeSafetensors({ h: { dtype: 'float16', shape: [bits.length], data: bits } });
    const entry = decodeSafetensors(file).tensors.h!;
    const t = fromData(cpu, entry.data, { shape: entry.shape, dtype: 'float16' });
    expect(t.dtype).toBe('float16');
    const back = new Uint16Array(bits.length);
    encodeHalves((await t.toData()).values, 0, bits.length, back);
    expect(encodeSafetensors({ h: { dtype: 'float16', shape: [bits.length], data: back } })).toEqual(file);
    t.dispose();
  });

  it('reads from a Uint8Array that is a view into a larger buffer at an odd offset', () => {
    const file = foreignFile(HEADER, DATA);
    const big = new Uint8Array(file.length + 3);
    big.set(file, 3);
    expect(Array.from(decodeSafetensors(big.subarray(3)).tensors.weight!.data)).toEqual([1, -2.5, 0.5, 3]);
  });

  const bad: Array<[string, Uint8Array]> = [
    ['shorter than the length field', Uint8Array.from([1, 0, 0])],
    ['a header longer than the file', Uint8Array.from([...u64le(100), ...ascii('{}')])],
    ['a header that is not JSON', foreignFile('{"a":', [])],
    ['a header that is not an object', foreignFile('[1]', [])],
    ['an unknown dtype', foreignFile('{"a":{"dtype":"C64","shape":[1],"data_offsets":[0,8]}}', new Array(8).fill(0))],
    ['a size that does not match the shape', foreignFile('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}', [0, 0, 0, 0])],
    ['a gap in the data', foreignFile('{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', new Array(8).fill(0))],
    ['overlapping tensors', foreignFile('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', [0, 0, 0, 0])],
    ['bytes after the last tensor', foreignFile('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', new Array(6).fill(0))],
    ['non-string metadata', foreignFile('{"__metadata__":{"n":1}}', [])],
    ['an I64 beyond int32', foreignFile('{"a":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}}', [0, 0, 0, 0, 1, 0, 0, 0])],
  ];
  it.each(bad)('rejects %s', (_name, bytes) => {
    expect(() => decodeSafetensors(bytes)).toThrow(ArgumentError);
  });

  it('rejects a header length beyond the 100 MB cap without reading it', () => {
    const bytes = new Uint8Array(16);
    new DataView(bytes.buffer).setBigUint64(0, 2n ** 40n, true);
    expect(() => decodeSafetensors(bytes)).toThrow(/more than/);
  });
});

describe('writing safetensors', () => {
  const tensors = {
    mask: { dtype: 'bool' as const, shape: [3], data: Uint8Array.from([1, 0, 1]) },
    b: { dtype: 'int32' as const, shape: [2], data: Int32Array.from([-7, 2 ** 30]) },
    a: { dtype: 'float32' as const, shape: [2, 1], data: Float32Array.from([0.25, -1e30]) },
  };

  it('lays out an 8-byte length, space-padded JSON, and little-endian data (4-byte dtypes first, by name)', () => {
    const bytes = encodeSafetensors(tensors, { note: 'hi' });
    const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    expect((8 + n) % 8).toBe(0);
    const json = new TextDecoder().decode(bytes.subarray(8, 8 + n));
    expect(json.trimEnd().length).toBeGreaterThan(0);
    expect(/^ *$/.test(json.slice(json.trimEnd().length))).toBe(true);
    const header = JSON.parse(json) as Record<string, { dtype: string; shape: number[]; data_offsets: number[] }>;
    expect(header.__metadata__).toEqual({ note: 'hi' });
    expect(header.a).toEqual({ dtype: 'F32', shape: [2, 1], data_offsets: [0, 8] });
    expect(header.b).toEqual({ dtype: 'I32', shape: [2], data_offsets: [8, 16] });
    expect(header.mask).toEqual({ dtype: 'BOOL', shape: [3], data_offsets: [16, 19] });
    const data = Array.from(bytes.subarray(8 + n));
    // 0.25 = 0x3e800000; -7 = 0xfffffff9; 2^30 = 0x40000000
    expect(data.slice(0, 4)).toEqual([0x00, 0x00, 0x80, 0x3e]);
    expect(data.slice(8, 16)).toEqual([0xf9, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x40]);
    expect(data.slice(16)).toEqual([1, 0, 1]);
  });

  it('round-trips', () => {
    const { tensors: back, metadata } = decodeSafetensors(encodeSafetensors(tensors, { k: 'v' }));
    expect(metadata).toEqual({ k: 'v' });
    expect(back).toEqual(tensors);
  });

  it('round-trips the foreign file through our writer', () => {
    const { tensors: t1 } = decodeSafetensors(foreignFile(HEADER, DATA));
    const { tensors: t2 } = decodeSafetensors(encodeSafetensors(t1));
    expect(t2).toEqual(t1);
  });
});

describe('modules as safetensors', () => {
  const ad = new Autodiff(new Cpu({ threads: 0 }));
  afterAll(() => ad.close());
  const mlp = () => new Sequential(new Linear(ad, 5, 4), new Relu(), new Linear(ad, 4, 3));

  it('saves every parameter under its name with its id, and loads into a fresh module', async () => {
    const m = mlp();
    const bytes = await saveModule(m, { epoch: '3' });
    const { tensors, metadata } = decodeSafetensors(bytes);
    expect(Object.keys(tensors).sort()).toEqual(['layers.0.bias', 'layers.0.weight', 'layers.2.bias', 'layers.2.weight']);
    expect(metadata.epoch).toBe('3');
    const loaded = loadModule(mlp(), bytes);
    expect(loaded.params().map((p) => p.id)).toEqual(m.params().map((p) => p.id));
    for (const [[, a], [, b]] of m.namedParams().map((e, i) => [e, loaded.namedParams()[i]!] as const)) {
      expect((await b.value.toData()).values).toEqual((await a.value.toData()).values);
    }
  });

  it('toDType casts every parameter in place (ids kept); saveModule writes float16 parameters as F16, and they load back bit for bit', async () => {
    const m = mlp();
    const before = await Promise.all(m.params().map(async (p) => Float32Array.from((await p.value.toData()).values)));
    const ids = m.params().map((p) => p.id);
    // Only the first layer in float16: a mixed model keeps each parameter's dtype in the file.
    const first = m.layers[0]!;
    expect(first.toDType('float16')).toBe(first);
    expect(m.params().map((p) => p.value.dtype)).toEqual(['float16', 'float16', 'float32', 'float32']);
    expect(m.params().map((p) => p.id)).toEqual(ids);
    const bytes = await saveModule(m);
    const { tensors } = decodeSafetensors(bytes);
    expect(tensors['layers.0.weight']!.dtype).toBe('float16');
    expect(tensors['layers.0.bias']!.dtype).toBe('float16');
    expect(tensors['layers.2.weight']!.dtype).toBe('float32');
    // The file's float16 bits are the float32 values rounded to float16 (an independent encoder).
    const want = new Uint16Array(before[0]!.length);
    encodeHalves(before[0]!, 0, before[0]!.length, want);
    expect(tensors['layers.0.weight']!.data).toEqual(want);
    // Into a float16 module: the same float16 values; into a float32 one: widened exactly.
    const half = loadModule(mlp().toDType('float16'), bytes);
    const back = loadModule(mlp(), bytes);
    const saved = await Promise.all(m.params().map(async (p) => Array.from((await p.value.toData()).values)));
    expect(await Promise.all(back.params().map(async (p) => Array.from((await p.value.toData()).values)))).toEqual(saved);
    expect(half.params().map((p) => p.value.dtype)).toEqual(['float16', 'float16', 'float16', 'float16']);
    expect(Array.from((await half.params()[0]!.value.toData()).values)).toEqual(saved[0]);
    // Back to float32: the float16 values, exactly.
    m.toDType('float32');
    expect(m.params().map((p) => p.value.dtype)).toEqual(['float32', 'float32', 'float32', 'float32']);
    expect(Array.from((await m.params()[0]!.value.toData()).values)).toEqual(saved[0]);
  });

  it('toDType refuses a dtype that is not float16 or float32, also from untyped callers', () => {
    const m = mlp();
    const untyped: (d: unknown) => unknown = (d) => Reflect.apply(m.toDType, m, [d]);
    expect(() => untyped('int32')).toThrow(DTypeError);
    expect(() => untyped('half')).toThrow(/toDType/);
    expect(m.params().every((p) => p.value.dtype === 'float32')).toBe(true);
  });

  it('gives fresh ids to files from other writers', () => {
    const bytes = encodeSafetensors({ w: { dtype: 'float32', shape: [1], data: Float32Array.from([1]) } });
    expect(safetensorsToRecord(bytes).params.w!.id).toMatch(/^[0-9a-f]{16}$/);
  });
});
