import { afterAll, describe, expect, test } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Distribution, keep, random, tidy, zeros } from '../../src/index.js';

const cpu = new Cpu({ threads: 2 });
afterAll(() => cpu.close());

describe('memory', () => {
  test('1,000 iterations of a compute loop inside tidy return live bytes to the start', async () => {
    const w = keep(random(cpu, [64, 64], Distribution.Normal(0, 0.1)));
    let x = keep(random(cpu, [8, 64]));
    await x.toData();
    const before = cpu.memory();
    for (let i = 0; i < 1000; i++) {
      const next = tidy(() => x.matmul(w).tanh().add(x).softmax(-1));
      x.dispose();
      x = next;
    }
    await x.toData();
    const after = cpu.memory();
    expect(after.tensors).toBe(before.tensors);
    expect(after.bytes).toBe(before.bytes);
    x.dispose();
    w.dispose();
  });

  test('freed buffers are reused by the pool', async () => {
    const a = zeros(cpu, [1000]);
    await a.toData();
    a.dispose();
    const pooled = cpu.memory().pooledBytes;
    expect(pooled).toBeGreaterThan(0);
    const b = zeros(cpu, [1000]);
    await b.toData();
    expect(cpu.memory().pooledBytes).toBeLessThan(pooled);
    b.dispose();
  });

  test('views share storage; the buffer lives while any view does', async () => {
    const a = random(cpu, [4, 4]);
    const want = Array.from((await a.toData()).values);
    const t = a.transpose();
    const s = t.slice([[1, 3], null]);
    a.dispose();
    t.dispose();
    const got = Array.from((await s.toData()).values);
    // s[i][j] = a[j][i + 1]
    const ref: number[] = [];
    for (let i = 0; i < 2; i++) for (let j = 0; j < 4; j++) ref.push(want[j * 4 + i + 1]!);
    expect(got).toEqual(ref);
    s.dispose();
  });

  test('tidy keeps returned tensors (nested) and frees the rest', async () => {
    const before = cpu.memory().tensors;
    const out = tidy(() => {
      const a = zeros(cpu, [3]);
      const b = a.add(1);
      return { list: [b.mul(2)], m: new Map([['k', b.exp()]]) };
    });
    expect(cpu.memory().tensors).toBe(before + 2);
    expect(Array.from((await out.list[0]!.toData()).values)).toEqual([2, 2, 2]);
    out.list[0]!.dispose();
    out.m.get('k')!.dispose();
    expect(cpu.memory().tensors).toBe(before);
  });
});
