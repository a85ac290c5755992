import { Cpu } from '../src/backends/cpu/backend.js';
import { CpuDevice } from '../src/devices/cpu.js';
import { MultiDevice } from '../src/devices/multi-device.js';
import { tidy } from '../src/memory/tidy.js';
import { Router } from '../src/router/router.js';
import { Distribution, random } from '../src/tensor/creation.js';
import { Tensor } from '../src/tensor/tensor.js';
const mode = (process.argv[2] ?? 'trace') as 'auto' | 'trace';
const r = new Router([new Cpu(), new Cpu({ device: CpuDevice.named('cpu:1') })], { placement: mode, placer: { persist: false } });
await r.calibrate();
const D = MultiDevice.B1(CpuDevice.Cpu);
const w = 128, q = 32;
const n = (s: number[]) => random(r, s, Distribution.Normal(0, 0.1), { device: D });
const b = { w1: n([w, q]), w2a: n([w, 2*q]), w2b: n([2*q, q]), w3: n([w, q/2]), w3b: n([q/2, q]), w4: n([w, q]) };
const x0 = n([32, w]);
for (let s = 0; s < 14; s++) {
  const out = tidy(() => {
    const x = x0;
    const b1 = x.matmul(b.w1).relu();
    const b2 = x.matmul(b.w2a).relu().matmul(b.w2b).relu();
    const b3 = x.tanh().matmul(b.w3).sigmoid().matmul(b.w3b);
    const b4 = x.mul(0.5).tanh().matmul(b.w4).gelu();
    return Tensor.cat([b1, b2, b3, b4], 1).add(x).mul(0.5).sum();
  });
  await out.item(); out.dispose();
  r.markStep();
}
await new Promise((res) => setTimeout(res, 50));
console.log(r.explain().toString());
await r.close();
