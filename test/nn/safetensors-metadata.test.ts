/**
 * Safetensors headers and metadata that another writer (or a hand edit) could produce: every
 * one either loads as documented or is an ArgumentError that names the problem.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError } from '../../src/errors.js';
import { Linear } from '../../src/nn/linear.js';
import { loadModule, recordToSafetensors, safetensorsToRecord } from '../../src/record/module.js';
import { decodeSafetensors, duplicateKey, encodeSafetensors } from '../../src/record/safetensors.js';
import { thrown } from '../thrown.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

const utf8 = new TextEncoder();

/** A file with this header text and these data bytes (header length as 8 little-endian bytes). */
function file(header: string, data: number[] = []): Uint8Array {
  const h = utf8.encode(header);
  const out = new Uint8Array(8 + h.length + data.length);
  new DataView(out.buffer).setBigUint64(0, BigInt(h.length), true);
  out.set(h, 8);
  out.set(data, 8 + h.length);
  return out;
}

/** One F32 tensor 'w' of shape [1] holding 1.0, plus metadata. */
function withIds(ids: string): Uint8Array {
  return file(`{"__metadata__":{"switchyard.param_ids":${JSON.stringify(ids)}},"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, [0, 0, 0x80, 0x3f]);
}

describe('switchyard.param_ids', () => {
  it.each([
    ['not JSON', '{w: "a"}', /is not JSON/],
    ['null', 'null', /must be a JSON object, got null/],
    ['an array', '["a"]', /must be a JSON object/],
    ['a number id', '{"w": 7}', /gives 'w' the id 7/],
    ['an empty id', '{"w": ""}', /gives 'w' the id ""/],
    ['a null id', '{"w": null}', /gives 'w' the id null/],
    ['a name given twice', '{"w": "a", "w": "b"}', /names 'w' twice/],
  ])('%s is an ArgumentError', (_, ids, message) => {
    const e = thrown(() => safetensorsToRecord(withIds(ids)));
    expect(e).toBeInstanceOf(ArgumentError);
    expect((e as Error).message).toMatch(message);
  });

  it('string ids are used as given; a missing entry gives fresh ids', () => {
    expect(safetensorsToRecord(withIds('{"w": "abc"}')).params['w']!.id).toBe('abc');
    const fresh = safetensorsToRecord(file('{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', [0, 0, 0x80, 0x3f]));
    expect(fresh.params['w']!.id).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('header keys', () => {
  it("a tensor named '__proto__' is an ordinary entry, and a strict load reports it as extra", () => {
    const bytes = file('{"__proto__":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', [0, 0, 0x80, 0x3f]);
    const { tensors } = decodeSafetensors(bytes);
    expect(Object.keys(tensors)).toEqual(['__proto__']);
    expect(Array.from(tensors['__proto__']!.data)).toEqual([1]);
    // A Linear(1, 1)'s own parameters plus a '__proto__' entry: strict loading names the extra one.
    const f32 = (v: number) => ({ dtype: 'float32' as const, shape: [1, 1], data: Float32Array.from([v]) });
    const extra = encodeSafetensors({ weight: f32(2), bias: { ...f32(3), shape: [1] }, ['__proto__']: f32(4) });
    const layer = new Linear(cpu, 1, 1);
    const e = thrown(() => loadModule(layer, extra));
    expect(e).toBeInstanceOf(ArgumentError);
    expect((e as Error).message).toContain('lacks: __proto__');
    layer.dispose();
  });

  it("a '__proto__' tensor round-trips through the writer", () => {
    const bytes = encodeSafetensors({ ['__proto__']: { dtype: 'float32', shape: [2], data: Float32Array.from([3, 4]) } });
    expect(Array.from(decodeSafetensors(bytes).tensors['__proto__']!.data)).toEqual([3, 4]);
  });

  it('a key twice in one object is an ArgumentError (JSON.parse would keep the last silently)', () => {
    const twice = '{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}';
    const e = thrown(() => decodeSafetensors(file(twice, [0, 0, 0x80, 0x3f])));
    expect(e).toBeInstanceOf(ArgumentError);
    expect((e as Error).message).toContain("the key 'w' twice");
    const meta = '{"__metadata__":{"a":"1","a":"2"}}';
    expect(thrown(() => decodeSafetensors(file(meta)))).toBeInstanceOf(ArgumentError);
  });

  it('duplicateKey looks at one object at a time, and not at values or escaped quotes', () => {
    expect(duplicateKey('{"a":{"b":1},"c":{"b":2}}')).toBeUndefined();
    expect(duplicateKey('{"a":"a","b":["a","a"]}')).toBeUndefined();
    expect(duplicateKey('{"a\\"":1,"a\\"":2}')).toBe('a"');
    expect(duplicateKey('{"x":[{"k":1,"k":2}]}')).toBe('k');
    expect(duplicateKey('[{"k":1},{"k":2}]')).toBeUndefined();
  });
});

describe('arguments', () => {
  it('an ArrayBuffer is read like the Uint8Array over it', () => {
    const bytes = withIds('{"w": "abc"}');
    const copy = bytes.slice().buffer;
    expect(Array.from(decodeSafetensors(copy).tensors['w']!.data)).toEqual([1]);
    expect(safetensorsToRecord(copy).params['w']!.id).toBe('abc');
  });

  it.each([
    ['a string', 'bytes'],
    ['an array of numbers', [1, 2, 3]],
    ['undefined', undefined],
    ['a DataView', new DataView(new ArrayBuffer(16))],
  ])('%s instead of bytes is an ArgumentError', (_, value) => {
    expect(thrown(() => decodeSafetensors(value as never))).toBeInstanceOf(ArgumentError);
    expect(thrown(() => safetensorsToRecord(value as never))).toBeInstanceOf(ArgumentError);
  });

  it('the writer rejects entries that are not tensors, and metadata that is not strings', () => {
    expect(thrown(() => encodeSafetensors({ w: { dtype: 'float32', shape: [2], data: [1, 2] } as never }))).toBeInstanceOf(ArgumentError);
    expect(thrown(() => encodeSafetensors({ w: { dtype: 'float64', shape: [1], data: new Float64Array(1) } as never }))).toBeInstanceOf(ArgumentError);
    expect(thrown(() => encodeSafetensors({ w: { dtype: 'int32', shape: [1], data: new Float32Array(1) } as never }))).toBeInstanceOf(ArgumentError);
    expect(thrown(() => encodeSafetensors({}, { epochs: 3 } as never))).toBeInstanceOf(ArgumentError);
    expect(thrown(() => recordToSafetensors({ params: { w: { id: 'x' as never, shape: [1], dtype: 'float32', data: Float32Array.from([1]) } } }, null as never))).toBeInstanceOf(ArgumentError);
  });
});
