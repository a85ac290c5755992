/**
 * The two flavours of the wasm kernels. Relaxed SIMD (fused multiply-add) is the default wherever
 * the engine has it: Node >= 22 and Chrome by default, Node 20.16+ once the backend turns V8's flag
 * on. `SWITCHYARD_RELAXED_SIMD=0` keeps the plain SIMD kernels, which engines without relaxed SIMD
 * run: this test runs the whole conformance table in a child process with that setting, inline and
 * on the pool, so both flavours stay under the conformance suite (the in-process suites run the
 * relaxed one).
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { relaxedSimdSupported } from '../../src/backends/cpu/wasm/module.js';
import { conformanceCases } from '../conformance/suite.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

function node(args: readonly string[], env: Record<string, string> = {}): string {
  return execFileSync(process.execPath, ['--import', 'tsx', ...args], { cwd: root, encoding: 'utf8', timeout: 300_000, env: { ...process.env, ...env } });
}

const probe = "import('./src/backends/cpu/wasm/module.ts').then((m) => console.log(m.relaxedSimdSupported()))";

describe('wasm kernel flavours', () => {
  test.runIf(typeof process.getBuiltinModule === 'function')('relaxed SIMD is on by default', () => {
    expect(relaxedSimdSupported()).toBe(true);
  });

  test('SWITCHYARD_RELAXED_SIMD=0 keeps the plain kernels', () => {
    expect(node(['--eval', probe], { SWITCHYARD_RELAXED_SIMD: '0' }).trim()).toBe('false');
  });

  test.each(['cpu', 'cpu-pool'])('conformance table on %s with the plain kernels', (backend) => {
    const out = node(['test/conformance/cli.ts', backend], { SWITCHYARD_RELAXED_SIMD: '0' });
    expect(out).toMatch(new RegExp(`\\b${conformanceCases().length} passed, 0 failed\\b`));
  });
});
