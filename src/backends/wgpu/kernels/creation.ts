/** full, arange, random: kernels with no inputs. */
import { numel, type OpRecord } from '../../../ir/ops.js';
import type { GpuContext } from '../context.js';
import { Params, grid, type Program } from '../wgsl/common.js';
import { CREATE_WORKGROUP, arangeFloatProgram, arangeIntProgram, fillProgram, randomProgram } from '../wgsl/creation.js';
import { freshStorage, type GpuKernel, type RawStorage } from './kernel.js';

function run(ctx: GpuContext, program: Program, out: RawStorage, p: Params): void {
  const n = numel(out.shape);
  if (n === 0) return;
  ctx.dispatch(program, [out.buffer.gpu], p, grid(Math.ceil(n / CREATE_WORKGROUP), ctx.maxWorkgroupsPerDim));
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The largest float32 strictly below x (finite x). */
function belowF32(x: number): number {
  f32[0] = x;
  const f = f32[0]!;
  if (f < x) return f;
  if (f === 0) return -1.401298464324817e-45;
  u32[0] = u32[0]! + (f > 0 ? -1 : 1);
  return f32[0]!;
}

/** The bits a value is stored as (float32 bits, int32 two's complement, bool 0/1). */
export function storedBits(dtype: OpRecord['outputs'][number]['dtype'], v: number): number {
  if (dtype === 'float32') {
    f32[0] = v;
    return u32[0]!;
  }
  if (dtype === 'int32') return (v | 0) >>> 0;
  return v !== 0 ? 1 : 0; // NaN is true, as in PyTorch
}

/** Fills a fresh storage with one value. */
export function fill(ctx: GpuContext, out: RawStorage, value: number): void {
  const p = new Params();
  p.u(numel(out.shape));
  p.u(storedBits(out.dtype, value));
  run(ctx, fillProgram, out, p);
}

export const fullKernel: GpuKernel<'full'> = {
  run(ctx, record: OpRecord<'full'>) {
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    fill(ctx, out, record.attrs.value);
    return [out];
  },
};

export const arangeKernel: GpuKernel<'arange'> = {
  run(ctx, record: OpRecord<'arange'>) {
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const { start, step } = record.attrs;
    const p = new Params();
    p.u(numel(meta.shape));
    if (meta.dtype === 'int32' && !(Number.isInteger(start) && Number.isInteger(step))) {
      // Fractional steps into int32 truncate each float64 value: rare, computed on the host.
      const n = numel(meta.shape);
      ctx.upload(out.buffer.gpu, Int32Array.from({ length: n }, (_, i) => start + i * step));
    } else if (meta.dtype === 'int32') {
      p.i(start);
      p.i(step);
      run(ctx, arangeIntProgram, out, p);
    } else {
      const sh = Math.fround(start);
      const th = Math.fround(step);
      p.f(sh);
      p.f(start - sh);
      p.f(th);
      p.f(step - th);
      run(ctx, arangeFloatProgram, out, p);
    }
    return [out];
  },
};

export const randomKernel: GpuKernel<'random'> = {
  run(ctx, record: OpRecord<'random'>) {
    const meta = record.outputs[0]!;
    const out = freshStorage(ctx, meta.shape, meta.dtype);
    const { distribution: d, seed, counter } = record.attrs;
    const p = new Params();
    p.u(numel(meta.shape));
    p.u(seed);
    p.u(counter);
    if (d.kind === 'uniform') {
      p.f(d.low);
      p.f(d.high - d.low);
      // Rounding can land on `high`: values above the largest float32 below it are clamped ([low, high)).
      p.f(d.high > d.low ? belowF32(d.high) : Infinity);
    } else if (d.kind === 'normal') {
      p.f(d.mean);
      p.f(d.std);
    } else if (d.kind === 'bernoulli') {
      // u < p exactly as the CPU decides it: u = k / 2^24, so k < ceil(p * 2^24).
      p.u(Math.min(Math.ceil(d.p * 16777216), 16777216));
    }
    run(ctx, randomProgram(d.kind), out, p);
    return [out];
  },
};
