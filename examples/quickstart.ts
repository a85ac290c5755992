/**
 * Quick start: random tensors on the CPU device, a few ops, printed like PyTorch.
 * Run with `npm run demo`.
 */
import { Cpu } from '../src/backends/cpu/backend.js';
import { CpuDevice, Distribution, fromData, random, scheduler } from '../src/index.js';

const cpu = new Cpu(); // worker threads = cores; small ops run inline
cpu.seed(42);
const device = CpuDevice.Cpu;

const where = new Map<string, string>();
const sub = scheduler.events$.subscribe((e) => where.set(e.op, e.where));

const x = random(cpu, [2, 3], Distribution.Normal(0, 1), { device });
const y = fromData(cpu, [[1, 2, 3], [4, 5, 6]], { device });
console.log('x =', await x.format());
console.log('x + y =', await x.add(y).format());
console.log('x @ y^T =', await x.matmul(y.transpose()).format());
console.log('exp(x) =', await x.exp().format());
console.log('erf(x) =', await x.erf().format());
console.log('sum(x, dim 1) =', await x.sum(1).format());
console.log('softmax(y) =', await y.softmax(-1).format());

// A matmul large enough for the worker pool.
const a = random(cpu, [512, 512]);
const t0 = performance.now();
const s = await a.matmul(a).mean().item();
console.log(`mean(a @ a) over 512x512 = ${s.toFixed(4)} in ${(performance.now() - t0).toFixed(1)} ms`);
console.log('where ops ran:', Object.fromEntries(where));
console.log('memory:', cpu.memory());

sub.unsubscribe();
await cpu.close();
