/**
 * Per-op overhead (`npm run bench -- overhead [--quick] [--wgpu]`): the wall time of one tiny op
 * (an add of 4 floats, dependent chain, each result disposed) on a bare Cpu, through a Router, and
 * under Autodiff<Router>. With --wgpu the router is Router<[Wgpu, Cpu]> (the op runs on its CPU
 * device), else Router<[Cpu, Cpu]>. Medians of interleaved repetitions: compare rows, not runs.
 * Written against the public API only, so the same file measures older commits.
 */
import { Autodiff, Cpu, CpuDevice, Router, fromData, type Backend } from '../src/index.js';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function chain(b: Backend, device: Parameters<Backend['randomStream']>[0], ops: number): Promise<number> {
  let x = fromData(b, [1, 2, 3, 4], { device });
  await x.toData();
  const t0 = performance.now();
  for (let i = 0; i < ops; i++) {
    const y = x.add(1);
    x.dispose();
    x = y;
  }
  await x.toData();
  const ms = performance.now() - t0;
  x.dispose();
  return (ms * 1000) / ops;
}

export async function main(args: readonly string[]): Promise<void> {
  const quick = args.includes('--quick');
  const ops = quick ? 5_000 : 20_000;
  const reps = quick ? 3 : 9;
  const cpu = new Cpu({ threads: 0 });
  let second: Backend & { close(): Promise<void> };
  if (args.includes('--wgpu')) {
    const { Wgpu } = await import('../src/backends/wgpu/backend.js');
    second = await Wgpu.create();
  } else second = new Cpu({ threads: 0, device: CpuDevice.named('cpu:1') });
  const router = new Router([second, new Cpu({ threads: 0, device: CpuDevice.named('cpu:r') })]);
  const onCpu = router.parseDevice('cpu:r');
  const ad = new Autodiff(router);
  const rows: Array<[string, Backend, Parameters<Backend['randomStream']>[0]]> = [
    ['cpu', cpu, cpu.defaultDevice()],
    [router.name, router, onCpu],
    [ad.name, ad, onCpu],
  ];
  const times = new Map<string, number[]>(rows.map(([n]) => [n, []]));
  for (const [, b, d] of rows) await chain(b, d, ops); // warm-up
  for (let r = 0; r < reps; r++) for (const [n, b, d] of rows) times.get(n)!.push(await chain(b, d, ops));
  const base = median(times.get('cpu')!);
  console.log(`\n### Per-op overhead: tiny add (4 floats), chain of ${ops}, median of ${reps} interleaved runs\n`);
  console.log('| backend | µs per op | vs bare cpu |');
  console.log('| --- | --- | --- |');
  for (const [n] of rows) {
    const m = median(times.get(n)!);
    console.log(`| ${n} | ${m.toFixed(2)} | ${(m / base).toFixed(2)}x |`);
  }
  await ad.close();
  await cpu.close();
}
