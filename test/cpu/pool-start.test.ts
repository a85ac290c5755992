/** The pool starts with the backend and its workers load plain JavaScript. */
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { workerFile } from '../../src/backends/cpu/worker-file.js';
import { wasmSimdSupported } from '../../src/backends/cpu/wasm/module.js';
import { fromData } from '../../src/index.js';

const backends: Cpu[] = [];
afterAll(async () => {
  for (const b of backends) await b.close();
});

describe('CPU pool start', () => {
  test('from the TypeScript sources, workers load one bundled ES module (no transpiler in the workers)', async () => {
    const file = await workerFile();
    expect(file.startsWith(tmpdir())).toBe(true);
    expect(file).toMatch(/switchyard-cpu-worker-[0-9a-f]{16}\.mjs$/);
    const text = readFileSync(file, 'utf8');
    // Everything is inlined: no import of a project module remains, only node builtins.
    const imports = [...text.matchAll(/^import .* from ["']([^"']+)["']/gm)].map((m) => m[1]!);
    expect(imports.every((s) => s.startsWith('node:'))).toBe(true);
    expect(existsSync(file)).toBe(true);
  });

  test('workers start when the backend is created, before any op', async () => {
    const cpu = new Cpu({ threads: 2 });
    backends.push(cpu);
    expect(await cpu.pool.started()).toBe(2);
  });

  test('kernels: wasm by default where SIMD exists, js on request; both compute the same', async () => {
    const wasm = new Cpu({ threads: 0 });
    const js = new Cpu({ threads: 0, kernels: 'js' });
    backends.push(wasm, js);
    expect(wasm.kernels).toBe(wasmSimdSupported() ? 'wasm' : 'js');
    expect(js.kernels).toBe('js');
    const v = [[0.5, -1.25, 3], [2, 0, -0.75]];
    const a = (await fromData(wasm, v).exp().sum(1).toData()).values;
    const b = (await fromData(js, v).exp().sum(1).toData()).values;
    const want = v.map((r) => r.reduce((s, x) => s + Math.exp(x), 0));
    for (let i = 0; i < 2; i++) {
      expect(Math.abs(a[i]! - want[i]!)).toBeLessThan(1e-5 * want[i]!);
      expect(Math.abs(b[i]! - want[i]!)).toBeLessThan(1e-5 * want[i]!);
    }
  });
});
