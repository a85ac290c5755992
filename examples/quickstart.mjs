/**
 * Quick start: random tensors on the CPU device, a few ops, printed like PyTorch.
 * Run with `npm run demo`. Plain JavaScript importing the package by its name, as an application
 * would (inside this repository the name resolves to lib/, which `npm ci` builds), so it starts
 * without a TypeScript loader.
 */
import { Cpu, CpuDevice, Distribution, fromData, random, scheduler } from 'switchyard';

const started = performance.now();
// Worker threads = cores, started now in the background; small ops run inline meanwhile.
const cpu = new Cpu();
cpu.seed(42);
const device = CpuDevice.Cpu;

/** @type {Map<string, string>} */
const where = new Map();
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

// A matmul large enough for the worker pool: once to warm up (threads, wasm tier-up), then timed.
const n = 512;
const a = random(cpu, [n, n]);
await a.matmul(a).mean().item();
const t0 = performance.now();
const s = await a.matmul(a).mean().item();
const ms = performance.now() - t0;
const kernels = cpu.kernels === 'wasm' ? `wasm kernels, ${cpu.relaxedSimd ? 'relaxed SIMD (FMA)' : 'SIMD'}` : 'JS kernels';
console.log(`mean(a @ a) over ${n}x${n} = ${s.toFixed(4)}, warm: ${ms.toFixed(1)} ms (${((2 * n ** 3) / ms / 1e6).toFixed(1)} GFLOP/s; ${cpu.threads} threads, ${kernels})`);
console.log('where ops ran:', Object.fromEntries(where));
console.log('memory:', cpu.memory());
console.log(`(${((performance.now() - started) / 1000).toFixed(2)} s from backend creation)`);

sub.unsubscribe();
await cpu.close();
