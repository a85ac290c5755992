/** A graph that is never backpropagated is freed with its tensors (in a child process with --expose-gc). */
import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';

test('unreached graphs release their saved tensors once garbage-collected', () => {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'test/autodiff/fixtures/unreached-graph.ts'], { encoding: 'utf8' });
  const { before, during, after } = JSON.parse(out.trim().split('\n').pop()!) as { before: number; during: number; after: number };
  expect(during).toBeGreaterThan(before + 50);
  expect(after).toBe(before);
});

test('gradient-penalty steps (createGraph) free everything they made', () => {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'test/autodiff/fixtures/penalty-loop.ts'], { encoding: 'utf8' });
  const { before, after } = JSON.parse(out.trim().split('\n').pop()!) as { before: number; maxDuring: number; after: number };
  expect(after).toBe(before);
});
