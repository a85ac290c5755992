/**
 * The browser example: a small matmul on WebGPU (navigator.gpu) or, with ?backend=cpu, on the
 * CPU backend (inline, no worker threads). The result is also left on `window.__switchyard`
 * for the headless test (test/wgpu/browser.test.ts).
 */
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { fromData, type Backend } from '../../src/index.js';
import { BIG, bigEntry, type BrowserResult } from './result.js';

declare global {
  interface Window {
    __switchyard?: BrowserResult;
  }
}

async function run(which: string): Promise<BrowserResult> {
  let backend: Backend;
  let adapter = 'none';
  let close: () => Promise<void>;
  if (which === 'cpu') {
    const cpu = new Cpu({ threads: 0 });
    backend = cpu;
    close = () => cpu.close();
  } else {
    const gpu = await Wgpu.create();
    const info = await gpu.adapterInfo();
    adapter = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ');
    backend = gpu;
    close = () => gpu.close();
  }
  // [[1, 2, 3], [4, 5, 6]] x [[7, 8], [9, 10], [11, 12]] = [[58, 64], [139, 154]]
  const a = fromData(backend, [[1, 2, 3], [4, 5, 6]]);
  const b = fromData(backend, [[7, 8], [9, 10], [11, 12]]);
  const { shape, values } = await a.matmul(b).toData();
  const grid = (salt: number) => Array.from({ length: BIG }, (_, i) => Array.from({ length: BIG }, (_, j) => bigEntry(i, j, salt)));
  const big = await fromData(backend, grid(1)).matmul(fromData(backend, grid(2))).toData();
  await close();
  return { backend: backend.name, adapter, shape, values: Array.from(values), isolated: globalThis.crossOriginIsolated === true, big: Array.from(big.values) };
}

const which = new URLSearchParams(location.search).get('backend') ?? 'wgpu';
document.getElementById('backend')!.textContent = which;
run(which).then(
  (r) => {
    window.__switchyard = r;
    document.getElementById('out')!.textContent = JSON.stringify(r, null, 2);
  },
  (e: unknown) => {
    const error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    window.__switchyard = { backend: which, adapter: 'none', shape: [], values: [], isolated: globalThis.crossOriginIsolated === true, big: [], error };
    document.getElementById('out')!.textContent = error;
  },
);
