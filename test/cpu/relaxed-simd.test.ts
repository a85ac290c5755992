/**
 * The relaxed-SIMD flavour of the wasm kernels (fused multiply-add), which Node >= 22 and Chrome
 * run by default. Node 20 has it behind a V8 flag: there this test runs the whole conformance
 * table in a child process started with the flag, inline and on the pool. (Where the engine has it
 * already, the in-process tests run it: test/cpu/wasm-kernels.test.ts covers both flavours.)
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { relaxedSimdSupported } from '../../src/backends/cpu/wasm/module.js';
import { conformanceCases } from '../conformance/suite.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const FLAG = '--experimental-wasm-relaxed-simd';

function node(args: readonly string[]): string {
  return execFileSync(process.execPath, [FLAG, '--import', 'tsx', ...args], { cwd: root, encoding: 'utf8', timeout: 300_000 });
}

const flagged = !relaxedSimdSupported();

describe.runIf(flagged)(`wasm kernels with relaxed SIMD (node ${FLAG})`, () => {
  test('the flag turns relaxed SIMD on', () => {
    const out = node(['--eval', "import('./src/backends/cpu/wasm/module.ts').then((m) => console.log(m.relaxedSimdSupported()))"]);
    expect(out.trim()).toBe('true');
  });

  test.each(['cpu', 'cpu-pool'])('conformance table on %s', (backend) => {
    const out = node(['test/conformance/cli.ts', backend]);
    expect(out).toMatch(new RegExp(`\\b${conformanceCases().length} passed, 0 failed\\b`));
  });
});
