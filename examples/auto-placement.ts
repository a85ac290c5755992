/**
 * Placement modes on Router<[Wgpu, Cpu]>: a small MLP trained for a few steps with
 * `placement: 'trace'` (or 'auto' with --auto), then `router.explain()` for the last step.
 *
 * Run: npx tsx examples/auto-placement.ts [--auto] [--steps n]
 * (on a machine without a GPU the WebGPU adapter is lavapipe; with no adapter at all, two CPU devices)
 */
import { Autodiff, Cpu, CpuDevice, Distribution, MultiDevice, Router, Wgpu, noGrad, random, tidy, type Backend, type Tensor } from '../src/index.js';

const mode = process.argv.includes('--auto') ? 'auto' : 'trace';
const stepsArg = process.argv.indexOf('--steps');
const steps = stepsArg >= 0 ? Number(process.argv[stepsArg + 1]) : 20;

const gpu: Backend = await Wgpu.create().catch(() => new Cpu({ device: CpuDevice.named('cpu:1') }));
const router = new Router([gpu, new Cpu()], { placement: mode });
await router.calibrate(); // transfers between the devices, at most 2 s (saved with the models)
const ad = new Autodiff(router);

// Parameters on the first device (the GPU); the batch arrives on the host CPU.
const host = MultiDevice.B2(CpuDevice.Cpu);
type P = Tensor<typeof ad, 'float'>;
const param = (shape: number[]): P => random(ad, shape, Distribution.Normal(0, 1 / Math.sqrt(shape[0]!))).requireGrad();
let p = { w1: param([784, 128]), w2: param([128, 10]) };
const x = random(ad, [16, 784], Distribution.Uniform(0, 1), { device: host });
const y = random(ad, [16, 10], Distribution.Uniform(0, 1), { device: host });

for (let i = 0; i < steps; i++) {
  const [loss, next] = tidy(() => {
    const l = x.matmul(p.w1).relu().matmul(p.w2).sub(y).square().mean();
    const grads = l.backward();
    const sgd = (w: P): P => noGrad(() => w.sub(w.grad(grads)!.mul(0.1)), ad.runtime).requireGrad();
    return [l, { w1: sgd(p.w1), w2: sgd(p.w2) }] as const;
  });
  const value = await loss.item();
  for (const w of Object.values(p)) w.dispose();
  p = next;
  router.markStep(); // a step ends here: 'trace' records, measures, plans and replays steps
  if (i % 5 === 4) console.log(`step ${i + 1}: loss ${value.toFixed(4)}`);
}
await router.placement!.settled(); // GPU ops report when their command batch is done
console.log(String(router.explain()));
await router.close();
