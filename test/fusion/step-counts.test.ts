/**
 * What one SGD step of the fusion bench's MLP (784-512-512-10, batch 256, softmax cross-entropy)
 * costs the GPU in work items, not time: records, dispatches, submits, new pipelines and bind
 * groups per step, with and without Fusion. The counts are the contract the bench's times rest
 * on; a change that adds dispatches to the step shows here first.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import type { GpuContext } from '../../src/backends/wgpu/context.js';
import { Fusion } from '../../src/fusion/fusion.js';
import { tidy } from '../../src/memory/tidy.js';
import * as nn from '../../src/nn/index.js';
import { ParamGrads, SGD } from '../../src/optim/index.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { fromData } from '../../src/tensor/creation.js';
import { describeGpu } from '../wgpu/gpu.js';

// The default runtime, as a training loop uses it (the optimizer's no-grad scope is that runtime's).
const runtime = Runtime.default;
const BATCH = 256;

interface Counts {
  records: number;
  dispatches: number;
  submits: number;
  pipelines: number;
  ops: Record<string, number>;
}

/** Per-step counts over `steps` steps run back to back (as the bench runs them), after two warm-up steps. */
async function countSteps(b: Backend, ctx: GpuContext, steps: number): Promise<Counts> {
  const ad = new Autodiff(b);
  const model = new nn.Sequential(new nn.Linear(ad, 784, 512), new nn.Relu(), new nn.Linear(ad, 512, 512), new nn.Relu(), new nn.Linear(ad, 512, 10));
  const opt = new SGD<typeof ad>({ lr: 0.01 });
  // Inputs from a fixed pattern: the counts do not depend on the values.
  const x = fromData(ad, Float32Array.from({ length: BATCH * 784 }, (_, i) => ((i * 37) % 101) / 101 - 0.5), { shape: [BATCH, 784] });
  const y = fromData(ad, Int32Array.from({ length: BATCH }, (_, i) => (i * 7) % 10));
  const step = () =>
    tidy(() => {
      const loss = nn.crossEntropy(model.forward(x), y);
      opt.step(model, ParamGrads.from(loss.backward(), model), 0.01);
      return loss;
    });
  for (let i = 0; i < 2; i++) {
    const l = step();
    await l.toData();
    l.dispose();
  }
  const ops: Record<string, number> = {};
  let records = 0;
  const sub = runtime.scheduler.events$.subscribe((e) => {
    records++;
    ops[e.record.op] = (ops[e.record.op] ?? 0) + 1;
  });
  const d0 = ctx.dispatchCount;
  const s0 = ctx.submitCount;
  const p0 = ctx.pipelineCount;
  try {
    let last: ReturnType<typeof step> | undefined;
    for (let i = 0; i < steps; i++) {
      const next = step();
      last?.dispose();
      last = next;
    }
    await last!.toData();
    last!.dispose();
    await runtime.scheduler.flush();
  } finally {
    sub.unsubscribe();
  }
  x.dispose();
  y.dispose();
  for (const k of Object.keys(ops)) ops[k]! /= steps;
  return { records: records / steps, dispatches: (ctx.dispatchCount - d0) / steps, submits: (ctx.submitCount - s0) / steps, pipelines: ctx.pipelineCount - p0, ops };
}

describeGpu('MLP training step: work per step', () => {
  let wgpu: Wgpu;
  let ctx: GpuContext;
  beforeAll(async () => {
    wgpu = await Wgpu.create();
    ctx = wgpu.exec(wgpu.defaultDevice()).context!;
  });
  afterAll(() => wgpu.close());

  test('under Fusion: one kernel per elementwise chain, constants folded in, no compiles, under one submit per step', async () => {
    const plain = await countSteps(wgpu, ctx, 4);
    const fused = await countSteps(new Fusion(wgpu), ctx, 4);
    console.log(`MLP step, batch ${BATCH}: autodiff<wgpu> ${JSON.stringify(plain)}\nautodiff<fusion<wgpu>> ${JSON.stringify(fused)}`);
    // Without Fusion, SGD's update is one fused record per parameter (6; op by op it was 12: mul and
    // sub). Under Fusion the optimizer hands over its ops one by one, and Fusion joins them (below).
    // crossEntropy's mean masks ignored rows (a batch of ignored targets has zero gradients, as
    // torch's, not 0 * inf = NaN). Masked fills are one maskFill record each, the value in its
    // attrs (56 before, when each was a where with a 0-d `full` constant): five of them (the safe
    // targets, the ignored rows' losses and that mask's backward, two relu backwards) drop five
    // constants, and the mask's backward no longer negates the mask (a logicalNot): 50. The two
    // `full`s left are the backward seed and the zeros scatterAdd adds into.
    expect(plain.dispatches).toBe(50);
    expect(plain.ops['maskFill']).toBe(5);
    expect(plain.ops['where'] ?? 0).toBe(0);
    expect(plain.ops['full']).toBe(2);
    expect(plain.ops['fused']).toBe(6);
    // 8 matmuls (3 forward, 5 backward), 6 sums, logSoftmax, gather, scatterAdd and the zeros it
    // adds into, one add, and 14 fused kernels (bias + relu, the loss chain, relu masks, the SGD
    // updates); the backward seed (a 0-d `full` 1) is computed inside the fused kernel that reads
    // it, and the maskFill steps carry their 0 as a parameter. The count is what it was when those
    // fills were where steps reading fused-in constants (34): the constants cost no dispatch here.
    expect(fused.dispatches).toBe(34);
    expect(fused.ops['full']).toBe(1);
    expect(fused.pipelines).toBe(0);
    // Steps run back to back share command buffers: one submit per step at most.
    expect(fused.submits).toBeLessThanOrEqual(1);
  });
});
