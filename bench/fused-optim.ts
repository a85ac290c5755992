/**
 * Fused optimizer updates (one record per parameter) against the same optimizer op by op: the
 * MLP training step on WebGPU (the default, fused, against `fused: false`) and under Fusion (the
 * default, ops handed to Fusion, against `fused: true`), two models from one record alternating
 * step by step (drifts hit both alike). Per step: host time until its reads are
 * asked for (the ops recorded), wall time, GPU dispatches; the paired wall ratio with its 95%
 * interval. The weights of both must agree (printed: the largest difference after the run).
 *
 * `--steps N` (600 timed pairs after 100), `--batch a,b` (256,1024), `--small` (784-64-10, batch 64, 150 pairs: lavapipe).
 * `--cpu`: instead, the CPU's crossover: Adam's update of parameters of 16 to 32768 values, fused
 * (one JS loop) against op by op (wasm passes), alternating, inline and on a pool of 2 threads.
 */
import { median, medianInterval } from './stats.js';
import { intOption } from './args.js';
import { mlpRecord } from './mlp-record.js';
import { torchJson } from './gpu-baselines.js';
import { Autodiff } from '../src/autodiff/autodiff.js';
import { Wgpu } from '../src/backends/wgpu/backend.js';
import { Cpu } from '../src/backends/cpu/backend.js';
import type { Backend } from '../src/backends/backend.js';
import { Module } from '../src/nn/module.js';
import { Param } from '../src/nn/param.js';
import { Fusion } from '../src/fusion/fusion.js';
import { tidy } from '../src/memory/tidy.js';
import { crossEntropy } from '../src/nn/loss.js';
import { Adam } from '../src/optim/adam.js';
import { ParamGrads } from '../src/optim/param-grads.js';
import { fromData } from '../src/tensor/creation.js';
import { mlp } from '../examples/data-parallel-task.js';
import type { AutodiffBackend } from '../src/autodiff/types.js';
import type { GpuContext } from '../src/backends/wgpu/context.js';
import type { ModuleRecord } from '../src/nn/record.js';

/** torch's eager step with Adam, foreach (its default) and fused=True, reading the loss each step as ours do. */
const TORCH = `
import json, sys, time, torch, torch.nn as nn, torch.nn.functional as F
cfg = json.loads(sys.argv[1]); dev = 'cuda'
out = {'device': torch.cuda.get_device_name(0)}
for B in cfg['batches']:
    for fused in (False, True):
        torch.manual_seed(0)
        mlp = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)).to(dev)
        opt = torch.optim.Adam(mlp.parameters(), lr=1e-3, fused=fused)
        xb = torch.rand(B, 784, device=dev); yb = torch.randint(0, 10, (B,), device=dev)
        def step():
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(mlp(xb), yb)
            loss.backward()
            opt.step()
            return loss.item()
        for _ in range(50): step()
        ts = []
        for _ in range(cfg['steps']):
            t0 = time.perf_counter(); step(); ts.append(time.perf_counter() - t0)
        ts.sort()
        out[f'{B}:{fused}'] = ts[len(ts) // 2] * 1000
print(json.dumps(out))
`;

type Timed = [host: number, wall: number, dispatches: number];

/** One model with its own Adam on `ad`; `step()` trains it on (x, y) and times it. */
async function runner<B extends AutodiffBackend>(ad: B, ctx: GpuContext, record: ModuleRecord, sizes: readonly number[], x: Float32Array, y: Int32Array, fused: boolean | undefined) {
  const device = ad.defaultDevice();
  const model = mlp(ad, device, sizes);
  await model.fromRecord(record);
  const opt = new Adam<B>({ lr: 1e-3, ...(fused === undefined ? {} : { fused }) });
  const n = y.length;
  return {
    model,
    step: async (): Promise<Timed> => {
      const d0 = ctx.dispatchCount;
      const t0 = performance.now();
      const loss = tidy(() => {
        const logits = model.forward(fromData(ad, x, { shape: [n, sizes[0]!], device }));
        const l = crossEntropy(logits, fromData(ad, y, { device }));
        opt.step(model, ParamGrads.from(l.backward(), model));
        return l;
      });
      // The loss and the last bias (ordered after the update).
      const reads = Promise.all([loss.item(), model.params().at(-1)!.value.toData()]);
      const host = performance.now() - t0;
      await reads;
      const wall = performance.now() - t0;
      loss.dispose();
      return [host, wall, ctx.dispatchCount - d0];
    },
    close: () => {
      model.dispose();
      opt.clear();
    },
  };
}

/** Adam's update alone on the CPU per parameter size: fused against op by op, alternating step by step. */
async function cpuSizes(): Promise<void> {
  console.log('\n## Adam update per parameter on the CPU: one fused JS loop against wasm passes op by op\n');
  console.log('| threads | values per parameter | parameters | fused, us per parameter | op by op, us per parameter | op by op / fused |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const threads of [0, 2]) {
    const ad = new Autodiff(new Cpu({ threads }));
    for (const n of [16, 256, 1024, 2048, 4096, 8192, 32768]) {
      const count = Math.max(1, Math.floor(50000 / n));
      const make = () => new Params(Array.from({ length: count }, () => new Param(fromData(ad, new Float32Array(n).fill(0.5)))));
      const sides = [true, false].map((fused) => {
        const m = make();
        const g = new ParamGrads<typeof ad>();
        for (const p of m.ps) g.set(p.id, fromData(ad, new Float32Array(n).fill(0.1)));
        return { m, g, opt: new Adam<typeof ad>({ lr: 1e-3, fused }), times: [] as number[] };
      });
      for (let s = 0; s < 60; s++) {
        for (const side of s % 2 ? sides : [...sides].reverse()) {
          const t0 = performance.now();
          side.opt.step(side.m, side.g);
          await side.m.ps[0]!.value.toData();
          if (s >= 10) side.times.push((performance.now() - t0) / count);
        }
      }
      const [f, e] = sides.map((x) => median(x.times) * 1000);
      console.log(`| ${threads} | ${n} | ${count} | ${f!.toFixed(1)} | ${e!.toFixed(1)} | ${(e! / f!).toFixed(2)}x |`);
      for (const side of sides) {
        side.g.dispose();
        side.m.dispose();
        side.opt.clear();
      }
    }
    await ad.close();
  }
}

class Params<B extends Backend> extends Module<B> {
  constructor(readonly ps: Array<Param<B>>) {
    super();
  }
}

export async function main(args: readonly string[]): Promise<void> {
  if (args.includes('--cpu')) return cpuSizes();
  const small = args.includes('--small');
  const sizes = small ? [784, 64, 10] : [784, 512, 512, 10];
  const at = args.indexOf('--batch');
  const batches = at >= 0 ? String(args[at + 1]).split(',').map(Number) : small ? [64] : [256, 1024];
  const steps = intOption(args, '--steps', small ? 150 : 600);
  const warm = small ? 30 : 100;
  const record = await mlpRecord(sizes);

  let info = '';
  const lines: string[] = [];
  // Each composition's default against the other choice: fused on plain WebGPU; under Fusion
  // the ops one by one (Fusion fuses them itself, same-shape parameters together).
  const choices = [
    { composition: 'autodiff<wgpu>', other: { label: 'Adam op by op (fused: false)', fused: false }, default: 'Adam fused (the default)' },
    { composition: 'autodiff<fusion<wgpu>>', other: { label: 'Adam fused apart (fused: true)', fused: true }, default: 'Adam ops to Fusion (the default)' },
  ] as const;
  for (const { composition, other, default: defaultLabel } of choices) {
    const gpu = await Wgpu.create();
    info ||= (await gpu.adapterInfo()).device || (await gpu.adapterInfo()).description;
    const ad = composition === 'autodiff<wgpu>' ? new Autodiff(gpu) : new Autodiff(new Fusion(gpu));
    const ctx = gpu.exec(gpu.defaultDevice()).context!;
    for (const n of batches) {
      let seed = 7;
      const next = (): number => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
      const x = new Float32Array(n * sizes[0]!).map(() => next());
      const y = new Int32Array(n).map(() => Math.floor(next() * 10));
      const chosen = await runner(ad, ctx, record, sizes, x, y, undefined);
      const alt = await runner(ad, ctx, record, sizes, x, y, other.fused);
      const rows = { chosen: [] as Timed[], alt: [] as Timed[] };
      const ratios: number[] = [];
      for (let s = 0; s < warm + steps; s++) {
        // Alternating which goes first: neither always follows the other.
        let a: Timed;
        let b: Timed;
        if (s % 2 === 0) {
          a = await alt.step();
          b = await chosen.step();
        } else {
          b = await chosen.step();
          a = await alt.step();
        }
        if (s < warm) continue;
        rows.alt.push(a);
        rows.chosen.push(b);
        ratios.push(a[1] / b[1]);
      }
      // Both trained on the same batches from the same weights: their weights agree to rounding.
      let diff = 0;
      const pf = chosen.model.params();
      const pe = alt.model.params();
      for (let i = 0; i < pf.length; i++) {
        const [u, v] = await Promise.all([pf[i]!.value.toData(), pe[i]!.value.toData()]);
        for (let k = 0; k < u.values.length; k++) diff = Math.max(diff, Math.abs(Number(u.values[k]) - Number(v.values[k])));
      }
      chosen.close();
      alt.close();
      const [lo, hi] = medianInterval(ratios);
      const cell = (r: Timed[]) => `${median(r.map((t) => t[1])).toFixed(3)} | ${median(r.map((t) => t[0])).toFixed(3)} | ${median(r.map((t) => t[2]))}`;
      lines.push(`| ${composition} | ${n} | ${other.label} | ${cell(rows.alt)} | |`);
      lines.push(`| ${composition} | ${n} | ${defaultLabel} | ${cell(rows.chosen)} | **${median(ratios).toFixed(3)}x** (${lo.toFixed(3)}-${hi.toFixed(3)}); weights differ by ${diff.toExponential(1)} |`);
    }
    await ad.close();
  }
  const torch = small ? undefined : torchJson<Record<string, number | string>>(TORCH, [JSON.stringify({ batches, steps })]);
  if (torch) {
    for (const n of batches) {
      const ms = (fused: boolean): string => Number(torch[`${n}:${fused ? 'True' : 'False'}`]).toFixed(3);
      lines.push(`| torch CUDA eager (${String(torch['device'])}) | ${n} | Adam, foreach (torch's default) | ${ms(false)} | | | |`);
      lines.push(`| torch CUDA eager | ${n} | Adam, fused=True | ${ms(true)} | | | |`);
    }
  } else if (!small) lines.push('| torch | | not available (python3 with torch and CUDA) | | | | |');
  console.log(`\n## Fused optimizer updates: MLP ${sizes.join('-')} training step, Adam, on ${info}\n`);
  console.log(`${steps} pairs after ${warm}, alternating step by step. Host ms: until the step's reads are asked for (its ops recorded).\n`);
  console.log('| backend | batch | optimizer | ms per step (median) | host ms (median) | dispatches per step | the other / the default, paired (95% interval) |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const l of lines) console.log(l);
}
