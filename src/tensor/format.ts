/** PyTorch-style printing: `tensor([[ 1.0000, -2.5000], ...], dtype=int32)`. */
import type { DType, TypedArray } from '../ir/dtype.js';

const EDGE = 3;
const SUMMARIZE_ABOVE = 1000;

function formatterFor(values: TypedArray, dtype: DType): (v: number) => string {
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
  const sci = maxAbs >= 1e8 || (minAbs !== Infinity && (minAbs < 1e-4 || maxAbs / minAbs > 1000)) ;
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

export function formatTensor(shape: readonly number[], dtype: DType, values: TypedArray, device: string): string {
  const fmt = formatterFor(values, dtype);
  const summarize = values.length > SUMMARIZE_ABOVE;
  const strs = Array.from(values, fmt);
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
    const n = shape[dim]!;
    const idx: Array<number | null> = [];
    if (summarize && n > 2 * EDGE) {
      for (let i = 0; i < EDGE; i++) idx.push(i);
      idx.push(null);
      for (let i = n - EDGE; i < n; i++) idx.push(i);
    } else for (let i = 0; i < n; i++) idx.push(i);
    const parts = idx.map((i) => (i === null ? '...' : render(dim + 1, offset + i * strides[dim]!)));
    if (dim === shape.length - 1) return `[${parts.join(', ')}]`;
    const sep = ',' + '\n'.repeat(shape.length - dim - 1) + ' '.repeat(indent + dim + 1);
    return `[${parts.join(sep)}]`;
  };
  const body = shape.length === 0 ? (strs[0] ?? '') : render(0, 0);
  const extras: string[] = [];
  if (values.length === 0) extras.push(`size=(${shape.join(', ')})`);
  if (dtype !== 'float32') extras.push(`dtype=${dtype}`);
  if (device !== 'cpu') extras.push(`device='${device}'`);
  return `tensor(${body}${extras.length ? ', ' + extras.join(', ') : ''})`;
}
