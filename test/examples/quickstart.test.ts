/**
 * `npm run demo` as a new user meets it: examples/quickstart.mjs imports the package by its name
 * (lib/, which `npm ci` builds through `prepare`), runs without a TypeScript loader and prints
 * the tensors it promises. The values come from the example's own seed; here they are checked
 * for consistency (x + y against x and y as printed), not against stored output.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const built = existsSync(`${root}lib/index.js`);

/** The numbers of a printed tensor line such as `tensor([[0.1, -2.0], ...])`. */
function numbers(line: string): number[] {
  return (line.match(/-?\d+(\.\d+)?(e[-+]?\d+)?/g) ?? []).map(Number);
}

describe.runIf(built)('quick start', () => {
  test('npm run demo prints the ops, the warm matmul and the memory report', async () => {
    const out = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['examples/quickstart.mjs'], { cwd: root, timeout: 60_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
    });
    for (const label of ['x =', 'x + y =', 'x @ y^T =', 'exp(x) =', 'erf(x) =', 'sum(x, dim 1) =', 'softmax(y) =', 'where ops ran:', 'memory:']) expect(out).toContain(label);
    const block = (label: string) => out.slice(out.indexOf(label) + label.length, out.indexOf('\n', out.indexOf(']])', out.indexOf(label))));
    const x = numbers(block('x ='));
    const sum = numbers(block('x + y ='));
    expect(x).toHaveLength(6);
    const y = [1, 2, 3, 4, 5, 6];
    // Printed to 4 decimals: within half a unit in the last place, twice.
    sum.forEach((v, i) => expect(Math.abs(v - (x[i]! + y[i]!))).toBeLessThanOrEqual(1e-4));
    expect(out).toMatch(/mean\(a @ a\) over 512x512 = -?\d+\.\d+, warm: \d+(\.\d+)? ms \(\d+(\.\d+)? GFLOP\/s; \d+ threads, (wasm kernels, (relaxed SIMD \(FMA\)|SIMD)|JS kernels)\)/);
  });
});
