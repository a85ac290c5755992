/** The benchmarks' starting MLP (examples/data-parallel-task.ts's `mlp`) as a record, made on a seeded CPU: every run and every side of a comparison starts from the same weights. */
import { Cpu } from '../src/backends/cpu/backend.js';
import type { ModuleRecord } from '../src/nn/record.js';
import { mlp } from '../examples/data-parallel-task.js';

export async function mlpRecord(sizes: readonly number[], seed = 1): Promise<ModuleRecord> {
  const cpu = new Cpu({ threads: 0 });
  cpu.seed(seed);
  const m = mlp(cpu, cpu.defaultDevice(), sizes);
  const r = await m.toRecord();
  m.dispose();
  await cpu.close();
  return r;
}
