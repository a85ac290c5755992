/**
 * An op's footprint (StarPU's word): what its cost depends on, computed from its inputs alone so
 * the placer can ask before the record exists. `key` names a history bucket (op, dtypes, shapes
 * rounded to quarter octaves, the attrs that change the work); `work` is the problem size n of
 * the per-op regression a*n^b + c; `flops` and `bytes` feed the roofline prior that splits a GPU
 * batch's time among its ops.
 */
import type { DType } from '../ir/dtype.js';
import { bytesPerElement } from '../ir/dtype.js';
import { numel, type OpAttrs, type OpName } from '../ir/ops.js';

export interface ShapedInput {
  readonly shape: readonly number[];
  readonly dtype: DType;
}

export interface Footprint {
  /** The history bucket, without the device. */
  readonly key: string;
  readonly op: string;
  /** The regression family: op and dtype. */
  readonly family: string;
  /** Problem size n: M*N*K (times the batch) for matmul, elements touched otherwise. */
  readonly work: number;
  readonly flops: number;
  readonly bytes: number;
  /** Estimated bytes of the output (what a move back would carry). */
  readonly outBytes: number;
}

/** Dims up to 16 exactly; larger ones rounded to quarter octaves (buckets about 19% wide). */
export function bucketDim(d: number): number {
  if (d <= 16) return d;
  return Math.round(2 ** (Math.round(4 * Math.log2(d)) / 4));
}

/** The attrs that change how much work an op does (reduction dims, scan dims); scalars and seeds do not. */
const WORK_ATTRS = ['dim', 'dims', 'keepDims', 'descending'] as const;

function attrSignature(attrs: object): string {
  // Asked once per op placed and per event: only the few keys that matter are looked at.
  let s = '';
  for (const k of WORK_ATTRS) {
    if (!(k in attrs)) continue;
    const v: unknown = Reflect.get(attrs, k);
    if (v === undefined) continue;
    s += `${k}=${Array.isArray(v) ? `[${v.join(',')}]` : typeof v === 'string' ? JSON.stringify(v) : String(v)};`;
  }
  return s;
}

function matmulWork(a: readonly number[], b: readonly number[]): number {
  const m = a.length >= 2 ? a[a.length - 2]! : 1;
  const k = a.length >= 1 ? a[a.length - 1]! : 1;
  const n = b.length >= 2 ? b[b.length - 1]! : 1;
  const batch = Math.max(numel(a.slice(0, -2)), numel(b.slice(0, -2)));
  return batch * m * n * k;
}

export function footprint(op: OpName | string, inputs: readonly ShapedInput[], attrs: OpAttrs[OpName] | object): Footprint {
  let elems = 0;
  let maxElems = 0;
  let bytes = 0;
  let shapes = '';
  let dtypes = '';
  for (const x of inputs) {
    const n = numel(x.shape);
    elems += n;
    if (n > maxElems) maxElems = n;
    bytes += n * bytesPerElement(x.dtype);
    shapes += `[${x.shape.map(bucketDim).join(',')}]`;
    dtypes += `${x.dtype},`;
  }
  let work: number;
  let flops: number;
  let outBytes: number;
  if (op === 'matmul' && inputs.length === 2) {
    work = matmulWork(inputs[0]!.shape, inputs[1]!.shape);
    flops = 2 * work;
    outBytes = 4 * numel(inputs[0]!.shape.slice(0, -1)) * (inputs[1]!.shape.at(-1) ?? 1);
  } else {
    // Elementwise-like: the output is about as large as the largest input.
    work = Math.max(elems, 1);
    flops = elems;
    outBytes = maxElems * 4;
  }
  bytes += outBytes;
  const family = `${op}|${dtypes}`;
  return { key: `${family}${shapes}|${attrSignature(attrs)}`, op, family, work, flops, bytes, outBytes };
}

/** Payload bytes of a tensor. */
export function tensorBytes(x: ShapedInput): number {
  return numel(x.shape) * bytesPerElement(x.dtype);
}

/** Exact shapes and dtypes: how a traced step recognises the same op in the next step. */
export function signature(op: string, inputs: readonly ShapedInput[]): string {
  let s = op;
  for (const x of inputs) s += `|${x.dtype}[${x.shape.join(',')}]`;
  return s;
}
