/**
 * First GPU-machine call: tunes the matmul tile configurations and measures the baselines
 * (naive kernel, TF.js webgpu, PyTorch, device copy) in one run, so bench/wgpu.ts can use the
 * winning configuration. `node dist/bench/gpu-probe.js [outfile.json]`.
 */
import { writeFileSync } from 'node:fs';
import { copyBandwidth, tfjsMatmul, torchBaselines } from './gpu-baselines.js';
import { checkKernel, kernels, requestBenchDevice, timeKernel } from './matmul-tune.js';

// PROBE_SMALL=1 checks the script itself on a software adapter.
const SHAPES: ReadonlyArray<readonly [number, number, number]> = process.env.PROBE_SMALL
  ? [[128, 128, 128], [100, 300, 52]]
  : [[1024, 1024, 1024], [2048, 2048, 2048], [4096, 4096, 4096], [1000, 3000, 500]];
const key = ([m, k, n]: readonly [number, number, number]) => `${m}x${k}x${n}`;

const { create, globals } = await import('webgpu');
Object.assign(globalThis, globals);
const gpu = create([]);
const device = await requestBenchDevice(gpu);
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
console.log('adapter:', adapter?.info.vendor, adapter?.info.architecture, adapter?.info.description);

const rows: Record<string, Record<string, number>> = {};
for (const k of kernels()) {
  const err = await checkKernel(device, k);
  rows[k.name] = { maxRelErr: err };
  for (const s of SHAPES) rows[k.name]![key(s)] = await timeKernel(device, k, s[0], s[1], s[2], s[0] >= 4096 ? 10 : 20);
  console.log(k.name.padEnd(24), JSON.stringify(rows[k.name]));
}
const copy = await copyBandwidth(device, 256 * 1024 * 1024, 20);
console.log('dawn copy GB/s', copy.toFixed(0));
const tfjs = await tfjsMatmul(gpu, SHAPES, 10);
console.log('tfjs webgpu', JSON.stringify(tfjs));
const torch = torchBaselines(SHAPES);
console.log('torch', JSON.stringify(torch));

const header = ['kernel', ...SHAPES.map(key)];
const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
const table = [line(header), line(header.map(() => '---'))];
for (const [name, r] of Object.entries(rows)) table.push(line([name, ...SHAPES.map((s) => (Number.isNaN(r[key(s)]) ? 'n/a' : r[key(s)]!.toFixed(2)))]));
if (tfjs) table.push(line(['TF.js webgpu', ...SHAPES.map((s) => tfjs[key(s)]?.toFixed(2) ?? 'n/a')]));
if (torch) table.push(line([`torch.matmul fp32 (${torch.device})`, ...SHAPES.map((s) => torch.matmulTflops[key(s)]?.toFixed(2) ?? 'n/a')]));
console.log('\nmatmul TFLOP/s\n' + table.join('\n'));
console.log(`copy: dawn ${copy.toFixed(0)} GB/s${torch ? `, torch copy ${torch.copyGBs.toFixed(0)} GB/s, torch add ${torch.addGBs.toFixed(0)} GB/s` : ''}`);
if (process.argv[2]) writeFileSync(process.argv[2], JSON.stringify({ rows, copy, tfjs, torch }, null, 2));
device.destroy();
process.exit(0);
