/**
 * Explicit placement through Router<[Wgpu, Cpu]>: the seed's example (a tensor on the GPU and
 * one on the CPU), then a two-layer network whose first layer runs on the GPU and second on the
 * CPU, with an explicit toDevice between them, printing where each op ran (from events$).
 *
 * Run: npx tsx examples/explicit-placement.ts [gpu-device]   (e.g. wgpu:0, wgpu:cpu; default: a
 * discrete GPU when there is one, else the default WebGPU adapter, lavapipe on a machine without a GPU)
 */
import { Cpu } from '../src/backends/cpu/backend.js';
import { Wgpu } from '../src/backends/wgpu/backend.js';
import { WgpuDevice } from '../src/devices/wgpu.js';
import { CpuDevice, DeviceError, Distribution, MultiDevice, Router, nn, random, scheduler, zeros, type OpEvent } from '../src/index.js';

const wgpu = await Wgpu.create();
const router = new Router([wgpu, new Cpu()]); // Router<[Wgpu, Cpu]>, named 'router<wgpu, cpu>'

/** The seed's device_0 when the machine has a discrete GPU; else the default adapter. */
async function gpuDevice(): Promise<MultiDevice<0, WgpuDevice>> {
  const arg = process.argv[2];
  if (arg) return router.parseDevice(arg) as MultiDevice<0, WgpuDevice>;
  try {
    await wgpu.init(WgpuDevice.DiscreteGpu(0));
    return MultiDevice.B1(WgpuDevice.DiscreteGpu(0));
  } catch {
    return MultiDevice.B1(WgpuDevice.Default);
  }
}

// ---- the seed's example ------------------------------------------------------------------
const device0 = await gpuDevice();
const device1 = MultiDevice.B2(CpuDevice.Cpu);
const tensorGpu = zeros(router, [3, 3], { device: device0 });
const tensorCpu = zeros(router, [3, 3], { device: device1 });
console.log(`${router.name}: adapter '${(await wgpu.adapterInfo(device0.inner)).description || device0.key}'`);
console.log('tensor_gpu =', await tensorGpu.format());
console.log('tensor_cpu =', await tensorCpu.format());
try {
  tensorGpu.add(tensorCpu);
} catch (e) {
  if (!(e instanceof DeviceError)) throw e;
  console.log(`\ntensor_gpu + tensor_cpu -> ${e.name}: ${e.message}`);
}
const sum = tensorGpu.add(tensorCpu.toDevice(device0)); // explicit: move, then add on the GPU
console.log('tensor_gpu + tensor_cpu.toDevice(device0) =', await sum.format());

// ---- a two-layer network split across the devices ----------------------------------------
router.seed(7);
const layer1 = new nn.Linear(router, 4, 16, { device: device0 }); // runs on the GPU
const layer2 = new nn.Linear(router, 16, 3, { device: device1 }); // runs on the CPU
const x = random(router, [8, 4], Distribution.Normal(0, 1), { device: device0 });

const events: OpEvent[] = [];
const sub = scheduler.events$.subscribe((e) => events.push(e));
const hidden = layer1.forward(x).relu(); // on device0
const logits = layer2.forward(hidden.toDevice(device1)); // explicit transfer, then on device1
const probs = logits.softmax(-1);
console.log('\nprobs =', await probs.format());
sub.unsubscribe();

console.log('\nwhere each op of the forward pass ran:');
console.log('| op | device | where | bytes in -> out | ms |');
console.log('| --- | --- | --- | --- | --- |');
for (const e of events) {
  console.log(`| ${e.op} | ${e.device} | ${e.where} | ${e.inputBytes} -> ${e.outputBytes} | ${(e.endAt - e.startAt).toFixed(3)} |`);
}

await router.close();
