/** full, arange, random: kernels with no inputs, split by output element. */
import { randomNormal, randomUnit } from '../../../ir/random.js';
import { numel, type OpRecord } from '../../../ir/ops.js';
import type { View } from '../view.js';
import type { CpuKernel } from './kernel.js';

function runFull(record: OpRecord<'full'>, _in: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  outputs[0]!.data.fill(record.attrs.value, lo, hi);
}

function runArange(record: OpRecord<'arange'>, _in: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const { start, step } = record.attrs;
  const out = outputs[0]!.data;
  for (let i = lo; i < hi; i++) out[i] = start + i * step;
}

function runRandom(record: OpRecord<'random'>, _in: readonly View[], outputs: readonly View[], lo: number, hi: number): void {
  const { distribution: d, seed, counter } = record.attrs;
  const out = outputs[0]!.data;
  switch (d.kind) {
    case 'default':
      for (let i = lo; i < hi; i++) out[i] = randomUnit(seed, counter + i);
      break;
    case 'uniform': {
      // Rounding to float32 can land on `high`; the range is [low, high).
      const top = belowF32(d.high);
      for (let i = lo; i < hi; i++) {
        const v = Math.fround(d.low + (d.high - d.low) * randomUnit(seed, counter + i));
        out[i] = v >= d.high && d.high > d.low ? top : v;
      }
      break;
    }
    case 'bernoulli':
      for (let i = lo; i < hi; i++) out[i] = randomUnit(seed, counter + i) < d.p ? 1 : 0;
      break;
    case 'normal':
      for (let i = lo; i < hi; i++) out[i] = d.mean + d.std * randomNormal(seed, counter + 2 * i);
      break;
  }
}

const f32 = new Float32Array(1);
const i32 = new Int32Array(f32.buffer);
/** The largest float32 strictly below x (finite x). */
function belowF32(x: number): number {
  f32[0] = x;
  const f = f32[0]!;
  if (f < x) return f;
  if (f === 0) return -1.401298464324817e-45;
  i32[0] = i32[0]! + (f > 0 ? -1 : 1);
  return f32[0]!;
}

const perOutput = (r: OpRecord): number => numel(r.outputs[0]!.shape);

export const fullKernel: CpuKernel<'full'> = { units: perOutput, cost: perOutput, run: runFull };
export const arangeKernel: CpuKernel<'arange'> = { units: perOutput, cost: perOutput, run: runArange };
export const randomKernel: CpuKernel<'random'> = { units: perOutput, cost: (r) => 20 * perOutput(r), run: runRandom };
