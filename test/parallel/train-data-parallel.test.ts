/**
 * examples/train-data-parallel.ts as a user runs it: arguments checked before anything starts,
 * a progress line per device, the accuracy, checkpoints and the scaling table; a replica that
 * dies stops the run with one line saying how to resume, and --resume continues from the
 * last checkpoint.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';

const script = fileURLToPath(new URL('../../examples/train-data-parallel.ts', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function trainer(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', script, ...args], { timeout: 280_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

function folder(): string {
  const d = mkdtempSync(join(tmpdir(), 'switchyard-train-dp-test-'));
  dirs.push(d);
  return d;
}

/** Small enough for a test: 256 digits in batches of 64 (four steps an epoch), 16 hidden units. */
const TINY = ['--devices', 'cpu:worker*2', '--train', '256', '--test', '64', '--hidden', '16', '--batch', '64', '--split', 'even'];

describe('train-data-parallel arguments', () => {
  test.each([
    [['--devices', 'gpu'], /--devices gpu: unknown device 'gpu'/],
    [['--strategy', 'ring'], /--strategy ring: expected main or sharded/],
    [['--resume'], /--resume needs --out DIR/],
    [['--inject-fault', 'x'], /--inject-fault x: expected REPLICA@STEP/],
  ])('%j is rejected at once with one line and exit code 2', async (args, message) => {
    const r = await trainer(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^train-data-parallel: /);
    expect(lines[0]).toMatch(message);
  });
});

describe('train-data-parallel runs', () => {
  test('progress per device, accuracy, a checkpoint per epoch, the scaling table', async () => {
    const out = folder();
    const r = await trainer([...TINY, '--epochs', '2', '--out', out, '--scaling-steps', '1']);
    expect(r.stderr).not.toMatch(/train-data-parallel:/);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/replica 0: cpu:worker in a thread/);
    expect(r.stdout).toMatch(/epoch 2\/2 +loss \d\.\d{4} +train acc [\d.]+% .* samples\/s +checkpoint .*step-000000008/);
    expect(r.stdout).toMatch(/replica 1 cpu:worker +shard +29 +[\d,]+ samples\/s of compute/);
    expect(r.stdout).toMatch(/test accuracy: [\d.]+% on \d+ digits/);
    expect(r.stdout).toMatch(/\| devices \| replicas \| samples\/s \| vs fastest alone \| efficiency/);
    expect(r.stdout).toMatch(/\| cpu:worker\*2 \| 2 \| [\d,]+ \| [\d.]+x \| [\d.]+ \|/);
    expect(existsSync(join(out, 'latest'))).toBe(true);
  });

  test('a replica that dies stops the run with how to resume; --resume continues from the checkpoint', async () => {
    const out = folder();
    // Step 6 is in epoch 2, after the checkpoint of epoch 1 (step 4).
    const failed = await trainer([...TINY, '--epochs', '2', '--out', out, '--scaling-steps', '0', '--inject-fault', '1@6']);
    expect(failed.code).toBe(1);
    const lines = failed.stderr.split('\n').filter((l) => l.startsWith('train-data-parallel:'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/ReplicaError: DataParallel: replica 1 \(cpu:worker\) ended: its worker thread exited with code 3; run again with --resume --out \S+ to continue from the checkpoint at step 4/);
    const resumed = await trainer([...TINY, '--epochs', '2', '--out', out, '--scaling-steps', '0', '--resume']);
    expect(resumed.stderr).not.toMatch(/train-data-parallel:/);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/resumed from \S+ at step 4 \(epoch 2, batch 1\)/);
    expect(resumed.stdout).not.toMatch(/epoch 1\/2/);
    expect(resumed.stdout).toMatch(/epoch 2\/2 .*checkpoint .*step-000000008/);
    expect(resumed.stdout).toMatch(/test accuracy: /);
  });
});
