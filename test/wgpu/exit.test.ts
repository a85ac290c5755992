import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { describeGpu } from './gpu.js';

const script = fileURLToPath(new URL('./fixtures/exits.ts', import.meta.url));
const twoBackends = fileURLToPath(new URL('./fixtures/notices.ts', import.meta.url));

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

  test("Dawn's limit notices print at most once per process, however many backends open", async () => {
    // Dawn prints them from native code when an instance first enumerates adapters (on lavapipe
    // and some NVIDIA drivers; none elsewhere): the backends share one instance.
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', twoBackends], { timeout: 90_000 }, (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
      });
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('values 2,3 4,5');
    for (const limit of ['maxDynamicUniformBuffersPerPipelineLayout', 'maxDynamicStorageBuffersPerPipelineLayout']) {
      expect(result.stderr.split('\n').filter((l) => l.includes(`${limit} artificially reduced`)).length).toBeLessThanOrEqual(1);
    }
  });
});
