import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';

test('tensors garbage-collected without dispose() are freed by the FinalizationRegistry', () => {
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', 'test/fixtures/finalizer.ts'], { encoding: 'utf8' });
  const { before, during, after } = JSON.parse(out.trim().split('\n').pop()!) as { before: number; during: number; after: number };
  expect(during).toBe(before + 200);
  expect(after).toBe(before);
});
