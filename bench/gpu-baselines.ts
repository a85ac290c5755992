/**
 * Baselines for the WebGPU benchmark, measured in the same run as our kernels: TensorFlow.js's
 * webgpu backend on the same `webgpu` package, PyTorch (cuBLAS fp32, TF32 off) when python3 has
 * torch with CUDA, and the raw device-copy bandwidth through Dawn.
 */
import { execFileSync } from 'node:child_process';

export interface TorchFigures {
  matmulTflops: Record<string, number>;
  addGBs: number;
  copyGBs: number;
  device: string;
}

const TORCH_SCRIPT = String.raw`
import json, sys, torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device('cuda')
def bench(fn, reps):
    fn(); torch.cuda.synchronize()
    s = torch.cuda.Event(enable_timing=True); e = torch.cuda.Event(enable_timing=True)
    best = float('inf')
    for _ in range(3):
        s.record()
        for _ in range(reps): fn()
        e.record(); torch.cuda.synchronize()
        best = min(best, s.elapsed_time(e) / 1000 / reps)
    return best
out = {'matmulTflops': {}, 'device': torch.cuda.get_device_name(0)}
for (m, k, n) in json.loads(sys.argv[1]):
    a = torch.randn(m, k, device=dev); b = torch.randn(k, n, device=dev)
    t = bench(lambda: torch.matmul(a, b), 20)
    out['matmulTflops'][f'{m}x{k}x{n}'] = 2 * m * k * n / t / 1e12
n = 64 * 1024 * 1024
x = torch.randn(n, device=dev); y = torch.randn(n, device=dev); z = torch.empty_like(x)
out['addGBs'] = 3 * 4 * n / bench(lambda: torch.add(x, y, out=z), 50) / 1e9
out['copyGBs'] = 2 * 4 * n / bench(lambda: z.copy_(x), 50) / 1e9
print(json.dumps(out))
`;

/** PyTorch figures, or undefined when python3 / torch / CUDA is missing. */
export function torchBaselines(shapes: ReadonlyArray<readonly [number, number, number]>): TorchFigures | undefined {
  return torchJson<TorchFigures>(TORCH_SCRIPT, [JSON.stringify(shapes)]);
}

/**
 * Runs a python3 script that prints its figures as one JSON line last; undefined when python3,
 * torch or CUDA is missing (or the script fails: its stderr is shown when `verbose`).
 */
export function torchJson<T>(script: string, args: readonly string[] = [], verbose = false): T | undefined {
  try {
    const out = execFileSync('python3', ['-c', script, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', verbose ? 'inherit' : 'ignore'], timeout: 600_000 });
    return JSON.parse(out.trim().split('\n').pop()!) as T;
  } catch {
    return undefined;
  }
}

type Tf = typeof import('@tensorflow/tfjs-core');

/** TensorFlow.js webgpu matmul TFLOP/s per shape (undefined when it cannot start). */
export async function tfjsMatmul(gpu: GPU, shapes: ReadonlyArray<readonly [number, number, number]>, reps: number): Promise<Record<string, number> | undefined> {
  try {
    const g = globalThis as { navigator?: { gpu?: GPU } };
    if (!g.navigator) Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true });
    else if (!g.navigator.gpu) Object.defineProperty(g.navigator, 'gpu', { value: gpu, configurable: true });
    const tf: Tf = await import('@tensorflow/tfjs-core');
    await import('@tensorflow/tfjs-backend-webgpu');
    if (!(await tf.setBackend('webgpu'))) return undefined;
    await tf.ready();
    const out: Record<string, number> = {};
    for (const [m, k, n] of shapes) {
      const a = tf.randomNormal([m, k]);
      const b = tf.randomNormal([k, n]);
      const warm = tf.matMul(a, b);
      await warm.data();
      warm.dispose();
      let best = Infinity;
      for (let r = 0; r < 3; r++) {
        const t0 = performance.now();
        let last: ReturnType<Tf['matMul']> | undefined;
        for (let i = 0; i < reps; i++) {
          last?.dispose();
          last = tf.matMul(a, b);
        }
        // One element read back: the queue is in order, so all reps are done.
        const probe = tf.slice(last!, [0, 0], [1, 1]);
        await probe.data();
        best = Math.min(best, (performance.now() - t0) / 1000 / reps);
        probe.dispose();
        last!.dispose();
      }
      out[`${m}x${k}x${n}`] = (2 * m * k * n) / best / 1e12;
      a.dispose();
      b.dispose();
    }
    return out;
  } catch (e) {
    console.error('tfjs webgpu baseline failed:', e instanceof Error ? e.message : e);
    return undefined;
  }
}

/** Best time in ms per repetition of work that `encode(enc, n)` records n times (after a warm-up). */
export async function bestMsPerRep(device: GPUDevice, encode: (enc: GPUCommandEncoder, n: number) => void, reps: number): Promise<number> {
  const run = async (n: number) => {
    const enc = device.createCommandEncoder();
    encode(enc, n);
    const t0 = performance.now();
    device.queue.submit([enc.finish()]);
    await device.queue.onSubmittedWorkDone();
    return performance.now() - t0;
  };
  await run(2);
  let best = Infinity;
  for (let r = 0; r < 3; r++) best = Math.min(best, (await run(reps)) / reps);
  return best;
}

/** Device-to-device copy bandwidth (GB/s, read + write bytes) with copyBufferToBuffer. */
export async function copyBandwidth(device: GPUDevice, bytes: number, reps: number): Promise<number> {
  const usage = GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
  const a = device.createBuffer({ size: bytes, usage });
  const b = device.createBuffer({ size: bytes, usage });
  const best = await bestMsPerRep(device, (enc, n) => {
    for (let i = 0; i < n; i++) enc.copyBufferToBuffer(a, 0, b, 0, bytes);
  }, reps);
  a.destroy();
  b.destroy();
  return (2 * bytes) / (best / 1000) / 1e9;
}

/**
 * The GPU's SM clock in MHz now (nvidia-smi), or undefined without it. Read right after a timed
 * round it tells at what clock the round ran: an NVIDIA GPU lowers its clocks within a second of
 * light use and raises them again only under sustained work.
 */
export function smClockMHz(): number | undefined {
  try {
    const out = execFileSync('nvidia-smi', ['--query-gpu=clocks.sm', '--format=csv,noheader,nounits'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
    const mhz = Number.parseInt(out.trim().split('\n')[0] ?? '', 10);
    return Number.isFinite(mhz) ? mhz : undefined;
  } catch {
    return undefined;
  }
}
