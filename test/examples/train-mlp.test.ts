/**
 * examples/train-mlp.ts as a user runs it: bad arguments end the run before anything loads,
 * with one line on stderr and exit code 2; outputs go to a fresh folder per run (or --out).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { hasAdapter } from '../wgpu/gpu.js';

const script = fileURLToPath(new URL('../../examples/train-mlp.ts', import.meta.url));
const made: string[] = [];

function trainer(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { timeout: 110_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** A run small enough for a test: 256 digits, one epoch, 16 hidden units, inline CPU. */
const TINY = ['--epochs', '1', '--train', '256', '--test', '64', '--hidden', '16', '--threads', '0'];

afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

describe('train-mlp arguments', () => {
  test.each([
    [['--device', 'gpu'], /--device gpu: expected cpu, wgpu/],
    [['--epochs', '0'], /--epochs 0: expected an integer/],
    [['--batch', '2.5'], /--batch 2.5: expected an integer/],
    [['--lr', 'fast'], /--lr fast: expected a number > 0/],
    [['--dropout', '1'], /--dropout 1: expected a probability/],
    [['--precision', 'f8'], /--precision f8: expected f32 or f16-mixed/],
    [['--capture'], /--capture records the step on a WebGPU device: use --device wgpu/],
    [['--capture', '--device', 'wgpu'], /--capture needs --dropout 0/],
    [['--capture', '--device', 'wgpu', '--dropout', '0', '--precision', 'f16-mixed'], /--capture needs --precision f32/],
    [['--bogus', '3'], /Unknown option '--bogus'/],
    [['extra'], /Unexpected argument 'extra'/],
  ])('%j is rejected at once with one line and exit code 2', async (args, message) => {
    const r = await trainer(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(''); // nothing loaded, nothing trained
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^train-mlp: /);
    expect(lines[0]).toMatch(message);
  });
});

describe('train-mlp outputs', () => {
  const checkpoint = (stdout: string): string => {
    const m = /checkpoint (\S+\.safetensors): reloaded/.exec(stdout);
    expect(m).not.toBeNull();
    return m![1]!;
  };

  test('two runs without --out write to two fresh folders', async () => {
    const [a, b] = await Promise.all([trainer(TINY), trainer(TINY)]);
    expect(a.code).toBe(0);
    expect(b.code).toBe(0);
    const fa = checkpoint(a.stdout);
    const fb = checkpoint(b.stdout);
    made.push(dirname(fa), dirname(fb));
    expect(dirname(fa)).not.toBe(dirname(fb));
    expect(existsSync(fa) && existsSync(fb)).toBe(true);
    expect(existsSync(join(dirname(fa), 'loss.svg'))).toBe(true);
  });

  test('--precision f16-mixed trains with float16 matmuls and loss scaling', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-train-test-'));
    made.push(dir);
    const r = await trainer([...TINY, '--precision', 'f16-mixed', '--out', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/f16-mixed/);
    expect(r.stdout).toMatch(/loss scale \d+, \d+ of \d+ steps skipped/);
    expect(r.stdout).toMatch(/reloaded, test accuracy [\d.]+% \(identical\)/);
  });

  test.runIf(hasAdapter)('--capture trains on WebGPU with captured steps (a WebGPU adapter is needed)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'switchyard-train-test-'));
    made.push(dir);
    // 256 digits in batches of 64: 4 full batches, the first captured, the rest replayed.
    const r = await trainer(['--epochs', '3', '--train', '256', '--test', '64', '--hidden', '32', '--device', 'wgpu', '--dropout', '0', '--capture', '--out', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/captured steps/);
    expect(r.stdout).toMatch(/reloaded, test accuracy [\d.]+% \(identical\)/);
    const acc = Number(/test accuracy: ([\d.]+)%/.exec(r.stdout)![1]);
    // Ten classes: chance is 10%; twelve short steps of Adam learn well past it.
    expect(acc).toBeGreaterThan(25);
  });

  test('--out DIR is used as given', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'switchyard-train-test-')), 'nested');
    made.push(dirname(dir));
    const r = await trainer([...TINY, '--out', dir]);
    expect(r.code).toBe(0);
    expect(checkpoint(r.stdout)).toBe(join(dir, 'mlp.safetensors'));
    expect(existsSync(join(dir, 'loss.svg'))).toBe(true);
  });
});
