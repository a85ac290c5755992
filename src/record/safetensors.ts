/**
 * The safetensors format (Hugging Face; what PyTorch users exchange weights in): an 8-byte
 * little-endian header length N, N bytes of JSON (name -> dtype, shape, data_offsets; optional
 * "__metadata__" of strings), then the raw little-endian data. We write F32, F16, I32 and BOOL;
 * we read those (F16 as float16 tensors, bit for bit, or as float32 on request), and BF16 and F64
 * (as float32: F64 values past float32's range become +-Infinity, tiny ones 0) and I64 (as int32,
 * when every value fits).
 */
import { ArgumentError } from '../errors.js';
import type { DType, TypedArray } from '../ir/dtype.js';
import { fromHalfBits } from '../ir/half.js';
import { isDType, show } from '../ir/validate.js';

export interface SafeTensor {
  readonly dtype: DType;
  readonly shape: readonly number[];
  readonly data: TypedArray;
}

export interface SafetensorsFile {
  readonly tensors: Readonly<Record<string, SafeTensor>>;
  readonly metadata: Readonly<Record<string, string>>;
}

/** The reference implementation's cap on the header size. */
const MAX_HEADER = 100 * 1024 * 1024;

const WRITE_NAMES: Record<DType, string> = { float32: 'F32', float16: 'F16', int32: 'I32', bool: 'BOOL' };
// A Map: a header's dtype string must not find Object.prototype's 'constructor' or '__proto__'.
const READ_SIZES: ReadonlyMap<string, number> = new Map([['F32', 4], ['I32', 4], ['BOOL', 1], ['F16', 2], ['BF16', 2], ['F64', 8], ['I64', 8]]);

const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function fail(message: string, hint?: string): ArgumentError {
  return new ArgumentError(message, { op: 'safetensors', ...(hint ? { hint } : {}) });
}

function numel(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** A plain object with no prototype: a key such as '__proto__' is then an ordinary entry. */
function dictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const WRITE_ARRAYS: Record<DType, { new (n: number): TypedArray }> = { float32: Float32Array, float16: Uint16Array, int32: Int32Array, bool: Uint8Array };

function checkTensorEntry(name: string, t: unknown): SafeTensor {
  if (!isObject(t)) throw fail(`tensor '${name}' must be { dtype, shape, data }, got ${show(t)}`);
  const { dtype, shape, data } = t;
  if (!isDType(dtype)) throw fail(`tensor '${name}' has dtype ${show(dtype)} (float32, float16, int32 or bool)`);
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) throw fail(`tensor '${name}' has a bad shape ${show(shape)}`);
  if (!(data instanceof WRITE_ARRAYS[dtype])) throw fail(`tensor '${name}' of dtype ${dtype} needs its data as a ${WRITE_ARRAYS[dtype].name}, got ${show(data)}`);
  return t as unknown as SafeTensor;
}

/** Serialises tensors (and string metadata) to safetensors bytes. */
export function encodeSafetensors(tensors: Readonly<Record<string, SafeTensor>>, metadata: Readonly<Record<string, string>> = {}): Uint8Array {
  if (!isObject(tensors)) throw fail(`tensors must be an object of name to { dtype, shape, data }, got ${show(tensors)}`);
  if (!isObject(metadata)) throw fail(`metadata must be an object of strings, got ${show(metadata)}`);
  for (const [k, v] of Object.entries(metadata)) if (typeof v !== 'string') throw fail(`metadata '${k}' must be a string, got ${show(v)}`);
  for (const [name, t] of Object.entries(tensors)) checkTensorEntry(name, t);
  // Wider dtypes first, then by name (as the reference writer), so every tensor stays aligned.
  const names = Object.keys(tensors).sort((a, b) => tensors[b]!.data.BYTES_PER_ELEMENT - tensors[a]!.data.BYTES_PER_ELEMENT || (a < b ? -1 : a > b ? 1 : 0));
  const header = dictionary<unknown>();
  if (Object.keys(metadata).length > 0) header['__metadata__'] = metadata;
  let offset = 0;
  for (const name of names) {
    if (name === '__metadata__') throw fail("'__metadata__' is reserved and cannot name a tensor");
    const t = tensors[name]!;
    if (t.data.length !== numel(t.shape)) throw fail(`tensor '${name}' has ${t.data.length} values for shape [${t.shape.join(', ')}]`);
    const bytes = t.data.byteLength;
    header[name] = { dtype: WRITE_NAMES[t.dtype], shape: [...t.shape], data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  // Pad with spaces so the data starts 8-byte aligned.
  const utf8 = new TextEncoder();
  let headerBytes = utf8.encode(json);
  const pad = (8 - (headerBytes.length % 8)) % 8;
  if (pad > 0) headerBytes = utf8.encode((json += ' '.repeat(pad)));
  const out = new Uint8Array(8 + headerBytes.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(headerBytes.length), true);
  out.set(headerBytes, 8);
  let at = 8 + headerBytes.length;
  for (const name of names) {
    const t = tensors[name]!;
    at += writeLE(out, at, t);
  }
  return out;
}

function writeLE(out: Uint8Array, at: number, t: SafeTensor): number {
  const src = t.data;
  if (src instanceof Uint8Array) {
    out.set(src.map((v) => (v !== 0 ? 1 : 0)), at);
    return src.length;
  }
  if (littleEndian) out.set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength), at);
  else {
    const view = new DataView(out.buffer, out.byteOffset + at, src.byteLength);
    for (let i = 0; i < src.length; i++) {
      if (src instanceof Float32Array) view.setFloat32(i * 4, src[i]!, true);
      else if (src instanceof Uint16Array) view.setUint16(i * 2, src[i]!, true);
      else view.setInt32(i * 4, src[i]!, true);
    }
  }
  return src.byteLength;
}

interface Entry {
  name: string;
  dtype: string;
  shape: number[];
  begin: number;
  end: number;
}

/**
 * The first key that appears twice in one object of a valid JSON text, or undefined
 * (JSON.parse keeps the last one silently; a checkpoint with two 'weight' entries is corrupt).
 */
export function duplicateKey(text: string): string | undefined {
  // One entry per open container: the keys seen in an object, null for an array.
  const open: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const keys = open[open.length - 1];
      if (expectKey && keys) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
        expectKey = false;
      }
      i = j;
    } else if (c === '{') {
      open.push(new Set());
      expectKey = true;
    } else if (c === '[') {
      open.push(null);
      expectKey = false;
    } else if (c === '}' || c === ']') {
      open.pop();
      expectKey = false;
    } else if (c === ',') {
      expectKey = (open[open.length - 1] ?? null) !== null;
    }
  }
  return undefined;
}

function parseHeader(bytes: Uint8Array): { entries: Entry[]; metadata: Record<string, string>; dataStart: number } {
  if (bytes.length < 8) throw fail(`${bytes.length} bytes cannot hold the 8-byte header length`);
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true);
  if (n > BigInt(MAX_HEADER)) throw fail(`the header claims ${n} bytes (more than the ${MAX_HEADER} allowed)`);
  const size = Number(n);
  if (8 + size > bytes.length) throw fail(`the header claims ${size} bytes but the file has ${bytes.length - 8} after the length`);
  let header: unknown;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + size));
    header = JSON.parse(text);
  } catch (e) {
    throw fail(`the header is not UTF-8 JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw fail('the header must be a JSON object');
  const twice = duplicateKey(text);
  if (twice !== undefined) throw fail(`the header has the key '${twice}' twice in one object`, 'each tensor and metadata key appears once');
  const metadata = dictionary<string>();
  const entries: Entry[] = [];
  for (const [name, value] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw fail('__metadata__ must be an object of strings');
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
        if (typeof v !== 'string') throw fail(`__metadata__.${k} must be a string`);
        metadata[k] = v;
      }
      continue;
    }
    const info = value as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    const { dtype, shape, data_offsets: offsets } = info ?? {};
    if (typeof dtype !== 'string') throw fail(`tensor '${name}' has no dtype`);
    const width = READ_SIZES.get(dtype);
    if (width === undefined) throw fail(`tensor '${name}' has dtype ${dtype}, which Switchyard cannot read`, 'supported: F32, I32, BOOL, F16, BF16, F64, I64');
    const isInts = (v: unknown): v is number[] => Array.isArray(v) && v.every((d) => Number.isSafeInteger(d) && (d as number) >= 0);
    if (!isInts(shape)) throw fail(`tensor '${name}' has a bad shape`);
    if (!isInts(offsets) || offsets.length !== 2 || offsets[0]! > offsets[1]!) throw fail(`tensor '${name}' has bad data_offsets`);
    const [begin, end] = offsets as [number, number];
    if (end - begin !== numel(shape) * width) throw fail(`tensor '${name}' spans ${end - begin} bytes, but ${dtype} [${shape.join(', ')}] needs ${numel(shape) * width}`);
    entries.push({ name, dtype, shape, begin, end });
  }
  // The data must be covered exactly: no gaps, no overlaps, nothing after the last tensor.
  const dataLength = bytes.length - 8 - size;
  let expected = 0;
  for (const e of [...entries].sort((a, b) => a.begin - b.begin || a.end - b.end)) {
    if (e.begin !== expected) throw fail(`tensor '${e.name}' starts at byte ${e.begin}, expected ${expected} (the data must be contiguous)`);
    expected = e.end;
  }
  if (expected !== dataLength) throw fail(`the tensors cover ${expected} bytes of data, the file holds ${dataLength}`);
  return { entries, metadata, dataStart: 8 + size };
}

/** How F16 entries load: as float16 tensors (their bits, the default) or widened to float32. */
export interface DecodeOptions {
  readonly float16?: 'float16' | 'float32';
}

function decodeEntry(view: DataView, at: number, e: Entry, options: DecodeOptions): SafeTensor {
  const n = numel(e.shape);
  const shape = e.shape;
  switch (e.dtype) {
    case 'F32': {
      // On little-endian hosts a copy of the bytes is the array (and owns an aligned buffer).
      if (littleEndian) return { dtype: 'float32', shape, data: new Float32Array(copyBytes(view, at, n * 4)) };
      const data = new Float32Array(n);
      for (let i = 0; i < n; i++) data[i] = view.getFloat32(at + i * 4, true);
      return { dtype: 'float32', shape, data };
    }
    case 'I32': {
      if (littleEndian) return { dtype: 'int32', shape, data: new Int32Array(copyBytes(view, at, n * 4)) };
      const data = new Int32Array(n);
      for (let i = 0; i < n; i++) data[i] = view.getInt32(at + i * 4, true);
      return { dtype: 'int32', shape, data };
    }
    case 'BOOL': {
      const data = new Uint8Array(n);
      for (let i = 0; i < n; i++) data[i] = view.getUint8(at + i) !== 0 ? 1 : 0;
      return { dtype: 'bool', shape, data };
    }
    case 'F16': {
      if (options.float16 === 'float32') {
        const data = new Float32Array(n);
        for (let i = 0; i < n; i++) data[i] = fromHalfBits(view.getUint16(at + i * 2, true));
        return { dtype: 'float32', shape, data };
      }
      if (littleEndian) return { dtype: 'float16', shape, data: new Uint16Array(copyBytes(view, at, n * 2)) };
      const data = new Uint16Array(n);
      for (let i = 0; i < n; i++) data[i] = view.getUint16(at + i * 2, true);
      return { dtype: 'float16', shape, data };
    }
    case 'BF16': {
      const data = new Float32Array(n);
      const word = new DataView(new ArrayBuffer(4));
      for (let i = 0; i < n; i++) {
        word.setUint32(0, view.getUint16(at + i * 2, true) << 16);
        data[i] = word.getFloat32(0);
      }
      return { dtype: 'float32', shape, data };
    }
    case 'F64': {
      const data = new Float32Array(n);
      for (let i = 0; i < n; i++) data[i] = view.getFloat64(at + i * 8, true);
      return { dtype: 'float32', shape, data };
    }
    default: {
      // I64: PyTorch's default integer dtype, narrowed to int32 when every value fits.
      const data = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const v = view.getBigInt64(at + i * 8, true);
        if (v > 2147483647n || v < -2147483648n) throw fail(`tensor '${e.name}' holds ${v}, outside int32`, 'Switchyard has no int64 dtype');
        data[i] = Number(v);
      }
      return { dtype: 'int32', shape, data };
    }
  }
}

/** Bytes as the readers take them: a Uint8Array (a Node Buffer is one) or an ArrayBuffer. */
export function asBytes(op: string, bytes: unknown): Uint8Array {
  if (bytes instanceof Uint8Array) return bytes;
  if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
  throw new ArgumentError(`expected the file's bytes as a Uint8Array or an ArrayBuffer, got ${show(bytes)}`, { op });
}

/**
 * Parses safetensors bytes, checking the header against the data (never reads out of bounds).
 * Tensors and metadata come back in objects without a prototype, so any key (even
 * '__proto__') is an ordinary entry.
 */
export function decodeSafetensors(bytes: Uint8Array | ArrayBuffer, options: DecodeOptions = {}): SafetensorsFile {
  const data = asBytes('safetensors', bytes);
  const { entries, metadata, dataStart } = parseHeader(data);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const tensors = dictionary<SafeTensor>();
  for (const e of entries) tensors[e.name] = decodeEntry(view, dataStart + e.begin, e, options);
  return { tensors, metadata };
}

function copyBytes(view: DataView, at: number, length: number): ArrayBuffer {
  const out = new ArrayBuffer(length);
  new Uint8Array(out).set(new Uint8Array(view.buffer, view.byteOffset + at, length));
  return out;
}

