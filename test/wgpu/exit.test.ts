import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { describeGpu } from './gpu.js';

const script = fileURLToPath(new URL('./fixtures/exits.ts', import.meta.url));

describeGpu('process lifetime', () => {
  test('after close() a Node process holding a GPU device exits by itself', async () => {
    // The limit only turns a hang into a failure; the process needs a fraction of it.
    const result = await new Promise<{ code: number | null; stdout: string; killed: boolean }>((resolve) => {
      const child = execFile(process.execPath, ['--import', 'tsx', script], { timeout: 90_000 }, (err, stdout) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, killed: child.killed });
      });
    });
    expect(result.killed).toBe(false);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('values 2,4,6');
  });
});
