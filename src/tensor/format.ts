/** PyTorch-style printing: `tensor([[ 1.0000, -2.5000], ...], dtype=int32)`. */
import type { DType, TypedArray } from '../ir/dtype.js';

const EDGE = 3;
const SUMMARIZE_ABOVE = 1000;

/**
 * The values a print shows: all of them up to 1000 elements, else the first and last three
 * along every longer dim (as PyTorch summarises). `cut[d]` marks the dims with a gap.
 */
export interface Summary {
  readonly shape: readonly number[];
  readonly values: readonly number[];
  readonly cut: readonly boolean[];
}

export function summarize(shape: readonly number[], values: ArrayLike<number>): Summary {
  const size = values.length;
  if (size <= SUMMARIZE_ABOVE) return { shape: [...shape], values: Array.from(values), cut: shape.map(() => false) };
  const picks = shape.map((n) => (n > 2 * EDGE ? [...Array.from({ length: EDGE }, (_, i) => i), ...Array.from({ length: EDGE }, (_, i) => n - EDGE + i)] : Array.from({ length: n }, (_, i) => i)));
  const strides: number[] = [];
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = acc;
    acc *= shape[i]!;
  }
  const out: number[] = [];
  const walk = (dim: number, offset: number): void => {
    if (dim === shape.length) {
      out.push(values[offset]!);
      return;
    }
    for (const i of picks[dim]!) walk(dim + 1, offset + i * strides[dim]!);
  };
  walk(0, 0);
  return { shape: picks.map((p) => p.length), values: out, cut: shape.map((n) => n > 2 * EDGE) };
}

function formatterFor(values: readonly number[], dtype: DType): (v: number) => string {
  if (dtype === 'bool') return (v) => (v ? 'True' : 'False');
  if (dtype === 'int32') return (v) => String(v);
  let maxAbs = 0;
  let minAbs = Infinity;
  let allInt = true;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    const a = Math.abs(v);
    if (a > maxAbs) maxAbs = a;
    if (a !== 0 && a < minAbs) minAbs = a;
    if (!Number.isInteger(v)) allInt = false;
  }
  const sci = maxAbs >= 1e8 || (minAbs !== Infinity && (minAbs < 1e-4 || maxAbs / minAbs > 1000));
  const special = (v: number) => (Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf');
  if (allInt && !sci) return (v) => (Number.isFinite(v) ? `${v}.` : special(v));
  if (sci) {
    return (v) => {
      if (!Number.isFinite(v)) return special(v);
      const [m, e] = v.toExponential(4).split('e');
      const exp = Number(e);
      return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
    };
  }
  return (v) => (Number.isFinite(v) ? v.toFixed(4) : special(v));
}

/** Prints a summary (see `summarize`) of a tensor of `shape`. */
export function formatSummary(summary: Summary, fullShape: readonly number[], dtype: DType, device: string): string {
  const { shape, values, cut } = summary;
  const fmt = formatterFor(values, dtype);
  const strs = values.map(fmt);
  const width = Math.max(1, ...strs.map((s) => s.length));
  const pad = (s: string) => s.padStart(width);
  const strides: number[] = [];
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = acc;
    acc *= shape[i]!;
  }
  const indent = 'tensor('.length;
  const render = (dim: number, offset: number): string => {
    if (dim === shape.length) return pad(strs[offset] ?? '');
    const parts = Array.from({ length: shape[dim]! }, (_, i) => render(dim + 1, offset + i * strides[dim]!));
    if (cut[dim]) parts.splice(EDGE, 0, '...');
    if (dim === shape.length - 1) return `[${parts.join(', ')}]`;
    const sep = ',' + '\n'.repeat(shape.length - dim - 1) + ' '.repeat(indent + dim + 1);
    return `[${parts.join(sep)}]`;
  };
  const body = shape.length === 0 ? (strs[0] ?? '') : render(0, 0);
  const extras: string[] = [];
  if (fullShape.reduce((a, b) => a * b, 1) === 0) extras.push(`size=(${fullShape.join(', ')})`);
  if (dtype !== 'float32') extras.push(`dtype=${dtype}`);
  if (device !== 'cpu') extras.push(`device='${device}'`);
  return `tensor(${body}${extras.length ? ', ' + extras.join(', ') : ''})`;
}

export function formatTensor(shape: readonly number[], dtype: DType, values: TypedArray, device: string): string {
  return formatSummary(summarize(shape, values), shape, dtype, device);
}
