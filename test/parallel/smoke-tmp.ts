import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { DataParallel } from '../../src/parallel/data-parallel.js';
import { renderTimeline } from '../../src/parallel/timeline.js';
import { mlp } from './fixtures/mlp-task.js';

const cpu = new Autodiff(new Cpu({ threads: 0 }));
cpu.seed(3);
const sizes = [16, 32, 32, 4];
const model = mlp(cpu, cpu.defaultDevice(), sizes);
const t0 = performance.now();
const dp = await DataParallel.create({ task: new URL('./fixtures/mlp-task.ts', import.meta.url), module: model, devices: process.argv[2] ?? 'cpu:worker*2', strategy: (process.argv[3] as 'main') ?? 'main', options: { sizes, optimizer: 'sgd', lr: 0.1 }, firstBucketBytes: 600 });
console.log('started in', (performance.now() - t0).toFixed(0), 'ms', dp.replicaInfo);
const B = 64;
const x = new Float32Array(B * 16).map((_, i) => Math.sin(i));
const y = new Int32Array(B).map((_, i) => i % 4);
for (let s = 0; s < 4; s++) {
  const r = await dp.step({ x: { data: x, shape: [B, 16] }, y: { data: y, shape: [B] } });
  console.log(r.step, r.loss.toFixed(4), r.metrics, r.shards, r.wallMs.toFixed(1));
  if (s === 3) console.log(renderTimeline(r.timeline));
}
const rec = await dp.record();
console.log(Object.keys(rec.params), rec.params['layers.0.weight']!.data.slice(0, 4));
await dp.close();
await cpu.close();
console.log('closed');
