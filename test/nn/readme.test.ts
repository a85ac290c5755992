/**
 * The README's training examples (the blocks after `<!-- readme-check: name -->`) type-check
 * against the sources and run: each is written, with 'switchyard' pointing at src/index.ts, to a
 * scratch folder that tsc checks with the project's settings, then imported.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { hasAdapter } from '../wgpu/gpu.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const dir = fileURLToPath(new URL('./.readme-check/', import.meta.url));
const readme = readFileSync(`${root}README.md`, 'utf8');

const blocks = [...readme.matchAll(/<!-- readme-check: ([\w-]+) -->\s*```ts\n([\s\S]*?)```/g)].map(([, name, code]) => ({ name: name!, code: code! }));

mkdirSync(dir, { recursive: true });
for (const b of blocks) writeFileSync(`${dir}${b.name}.ts`, b.code.replaceAll("from 'switchyard'", "from '../../../src/index.js'"));
writeFileSync(`${dir}tsconfig.json`, JSON.stringify({ extends: '../../../tsconfig.json', compilerOptions: { noEmit: true, rootDir: '../../..' }, include: ['*.ts'] }));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * float64: P = mean_b (|d/dx_b sum tanh(x w)| - 1)^2 with d/dx_b = w (1 - tanh(x_b w)^2), and
 * dP/dw by central differences.
 */
function penaltyRef(x: number[][], w: number[][]): { value: number; dw: number[] } {
  const p = (m: number[][]): number => {
    let total = 0;
    for (const row of x) {
      const s = [0, 1].map((j) => 1 - Math.tanh(row[0]! * m[0]![j]! + row[1]! * m[1]![j]!) ** 2);
      const g = [0, 1].map((i) => m[i]![0]! * s[0]! + m[i]![1]! * s[1]!);
      total += (Math.hypot(g[0]!, g[1]!) - 1) ** 2;
    }
    return total / x.length;
  };
  const dw = [0, 1, 2, 3].map((k) => {
    const shift = (d: number) => w.map((r, i) => r.map((v, j) => (i * 2 + j === k ? v + d : v)));
    return (p(shift(1e-6)) - p(shift(-1e-6))) / 2e-6;
  });
  return { value: p(w), dw };
}

describe('README examples', () => {
  it('has the higher-order gradients, the training loop, the fit example, L-BFGS and the captured step', () => {
    expect(blocks.map((b) => b.name)).toEqual(['higher-order', 'training-loop', 'fit', 'lbfgs', 'captured-step']);
  });

  it('the gradient penalty matches its float64 value and gradient', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(`${dir}higher-order.ts`);
      const [label, penalty, , dw] = log.mock.calls.at(-1)! as [string, number, string, number[]];
      expect(label).toBe('penalty');
      const ref = penaltyRef([[0.5, -1], [2, 0.25]], [[1, -2], [0.5, 1]]);
      expect(penalty).toBeCloseTo(ref.value, 5);
      dw.forEach((v, i) => expect(v).toBeCloseTo(ref.dw[i]!, 4));
    } finally {
      log.mockRestore();
    }
  });

  it('type-check', () => {
    const tsc = `${root}node_modules/typescript/bin/tsc`;
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', `${dir}tsconfig.json`], { encoding: 'utf8' });
    } catch (e) {
      output = String((e as { stdout?: string }).stdout ?? e);
    }
    expect(output).toBe('');
  });

  it('the training loop learns its six points', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(`${dir}training-loop.ts`);
      const calls = log.mock.calls.map((c) => c);
      expect(calls.at(-1)).toEqual([[1, 1, 0, 0, 1, 0]]);
      expect(calls.filter((c) => String(c[0]).startsWith('step'))).toHaveLength(4);
    } finally {
      log.mockRestore();
    }
  });

  it('fit separates the two clusters', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      await import(`${dir}fit.ts`);
      const valid = log.mock.calls.at(-1)![0] as { loss: number; accuracy: number };
      expect(valid.accuracy).toBe(1);
    } finally {
      log.mockRestore();
      write.mockRestore();
    }
  });

  it('L-BFGS finds the exact line', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(`${dir}lbfgs.ts`);
      const [label, first, evaluations, w, b] = log.mock.calls.at(-1)!;
      expect(label).toBe('lbfgs');
      expect(first).toBeGreaterThan(1);
      expect(evaluations).toBeLessThanOrEqual(Math.floor((50 * 5) / 4));
      expect(w).toEqual([[expect.closeTo(2, 4)], [expect.closeTo(-3, 4)]]);
      expect(b).toEqual([expect.closeTo(0.5, 4)]);
    } finally {
      log.mockRestore();
    }
  });

  it.runIf(hasAdapter)('the captured step learns the pattern (a WebGPU adapter is needed)', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      await import(`${dir}captured-step.ts`);
      const [label, loss] = log.mock.calls.at(-1)!;
      expect(label).toBe('loss');
      // ln 10 = 2.30 at the start; 21 SGD steps on a separable pattern bring it down.
      expect(loss).toBeLessThan(2.2);
    } finally {
      log.mockRestore();
    }
  });
});
