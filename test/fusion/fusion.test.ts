/**
 * Fusion<Cpu>: what is buffered, when groups flush, which values are written, and that fused
 * results equal the unfused ops' and an independent float64 reference.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { MultiDevice } from '../../src/devices/multi-device.js';
import { ArgumentError } from '../../src/errors.js';
import { Fusion } from '../../src/fusion/fusion.js';
import type { FusedAttrs } from '../../src/ir/fused.js';
import type { OpRecord } from '../../src/ir/ops.js';
import { keep as keepIn, tidy as tidyIn } from '../../src/memory/tidy.js';
import { Router } from '../../src/router/router.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { fromData, full } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import type { Backend } from '../../src/backends/backend.js';
import { erf as erfRef, gelu } from '../conformance/ref.js';

const runtime = new Runtime();
const tidy = <T>(fn: () => T): T => tidyIn(fn, runtime);
const keep = <T extends Tensor>(t: T): T => keepIn(t, runtime);
const cpu = new Cpu({ threads: 0, runtime, kernels: 'js' }) // bit-for-bit comparisons with the unfused JS kernels;
const fusion = new Fusion(cpu);
afterAll(() => fusion.close());

/** The records the scheduler ran while `fn` (and its reads) ran. */
async function recorded(fn: () => Promise<unknown>): Promise<OpRecord[]> {
  const records: OpRecord[] = [];
  const sub = runtime.scheduler.events$.subscribe((e) => records.push(e.record));
  try {
    await fn();
    await runtime.scheduler.flush();
  } finally {
    sub.unsubscribe();
  }
  return records;
}

function fusedOf(records: readonly OpRecord[]): FusedAttrs[] {
  return records.flatMap((r) => (r.op === 'fused' ? [r.attrs] : []));
}

const X = [-3, -1.5, -0.25, 0, 0.5, 1, 2.5, 4];

/** GELU written with five tensor ops, as the issue states it. */
function gelu5<B extends Backend>(x: Tensor<B, 'float'>): Tensor<B, 'float'> {
  return x.mul(x.div(Math.SQRT2).erf().add(1)).div(2);
}

describe('Fusion<Cpu>', () => {
  it('is named after what it wraps and refuses to wrap an autodiff backend', () => {
    expect(fusion.name).toBe('fusion<cpu>');
    expect(() => new Fusion(new Autodiff(new Cpu({ threads: 0 })))).toThrow(ArgumentError);
    expect(() => new Fusion(cpu, { maxOps: 0 })).toThrow(ArgumentError);
    expect(() => new Fusion(cpu, { fuse: true } as never)).toThrow(/unknown option 'fuse'/);
  });

  it('runs the five-op GELU as one fused record of five steps, writing only the result under tidy', async () => {
    const x = fromData(fusion, X, { shape: [2, 4] });
    let y!: Tensor<Fusion<Cpu>, 'float'>;
    const records = await recorded(async () => {
      y = tidy(() => gelu5(x));
      await y.toData();
    });
    const ops = records.map((r) => r.op);
    expect(ops).toEqual(['fused']);
    const [attrs] = fusedOf(records);
    expect(attrs!.steps.map((s) => s.op)).toEqual(['divScalar', 'erf', 'addScalar', 'mul', 'divScalar']);
    expect(attrs!.outputs).toEqual([4]);
    // Scalars travel as attrs (kernel parameters), not in the structure.
    expect(attrs!.steps[0]).toMatchObject({ op: 'divScalar', attrs: { scalar: Math.fround(Math.SQRT2) }, args: [{ input: 0 }] });
    const got = Array.from((await y.toData()).values);
    got.forEach((v, i) => expect(Math.abs(v - gelu(X[i]!))).toBeLessThanOrEqual(2e-7 + 2e-6 * Math.abs(gelu(X[i]!))));
    // The same values as the unfused ops on the same backend, bit for bit (each step rounds to float32).
    const plain = fromData(cpu, X, { shape: [2, 4] });
    const unfused = gelu5(plain);
    expect(Array.from((await unfused.toData()).values)).toEqual(got);
  });

  it('writes every intermediate that still has an owner (no tidy), in one record', async () => {
    const x = fromData(fusion, [1, 2, 3, 4]);
    let a!: Tensor<Fusion<Cpu>, 'float'>;
    let b!: Tensor<Fusion<Cpu>, 'float'>;
    const records = await recorded(async () => {
      a = x.mul(2);
      b = a.add(1).exp();
      await b.toData();
    });
    const [attrs] = fusedOf(records);
    expect(records.map((r) => r.op)).toEqual(['fused']);
    expect(attrs!.outputs).toEqual([0, 1, 2]);
    expect(Array.from((await a.toData()).values)).toEqual([2, 4, 6, 8]);
    expect(Array.from((await b.toData()).values)).toEqual([3, 5, 7, 9].map((v) => Math.fround(Math.exp(v))));
  });

  it('skips work whose results nobody owns, and forwards a lone op unchanged', async () => {
    const x = fromData(fusion, [1, 2, 3]);
    await x.toData();
    const none = await recorded(async () => {
      tidy(() => {
        x.exp().add(1);
      });
    });
    expect(none).toEqual([]);
    let y!: Tensor<Fusion<Cpu>, 'float'>;
    const one = await recorded(async () => {
      y = tidy(() => {
        x.exp(); // dead: not computed
        return x.neg();
      });
      await y.toData();
    });
    expect(one.map((r) => r.op)).toEqual(['neg']);
    expect(Array.from((await y.toData()).values)).toEqual([-1, -2, -3]);
  });

  it('flushes a group when another op reads one of its tensors, and keeps unrelated groups open', async () => {
    const x = fromData(fusion, [[1, 2], [3, 4]]);
    const other = fromData(fusion, [5, 6, 7]);
    await x.toData();
    await other.toData();
    const records = await recorded(async () => {
      const s = tidy(() => {
        const o = other.mul(3).add(1); // a group of shape [3]
        const e = x.exp().mul(2); // a group of shape [2, 2]
        const sum = e.sum(1); // reads e: flushes the [2, 2] group first
        expect(fusion.bufferedOps).toBe(2); // the [3] group is still open
        keep(o);
        return sum;
      });
      await s.toData();
    });
    expect(records.map((r) => r.op)).toEqual(['fused', 'sum', 'fused']);
  });

  it('puts an op whose input is buffered in a group of another shape after flushing that group', async () => {
    const row = fromData(fusion, [1, 2, 3]);
    const m = fromData(fusion, [[1, 1, 1], [2, 2, 2]]);
    await m.toData();
    let out!: Tensor<Fusion<Cpu>, 'float'>;
    const records = await recorded(async () => {
      out = tidy(() => {
        const r = row.mul(10).add(1); // [3]
        return m.mul(r).sub(1); // [2, 3]: r becomes an external input
      });
      await out.toData();
    });
    expect(records.map((r) => r.op)).toEqual(['fused', 'fused']);
    expect(Array.from((await out.toData()).values)).toEqual([10, 20, 30, 21, 41, 61]);
  });

  it('reads flush the group of the tensor read; the end of the turn flushes the rest', async () => {
    const x = fromData(fusion, [1, 2]);
    const y = x.add(1);
    expect(fusion.bufferedOps).toBe(1);
    const read = y.toData();
    expect(fusion.bufferedOps).toBe(0);
    expect(Array.from((await read).values)).toEqual([2, 3]);
    x.mul(3);
    expect(fusion.bufferedOps).toBe(1);
    await Promise.resolve();
    expect(fusion.bufferedOps).toBe(0);
  });

  it('caps a group at maxOps steps', async () => {
    const capped = new Fusion(cpu, { maxOps: 4 });
    const x = fromData(capped, [1]);
    let y!: Tensor<Fusion<Cpu>, 'float'>;
    const records = await recorded(async () => {
      y = tidy(() => {
        let t = x;
        for (let i = 0; i < 10; i++) t = t.add(1);
        return t;
      });
      await y.toData();
    });
    expect(fusedOf(records).map((a) => a.steps.length)).toEqual([4, 4, 2]);
    expect(Array.from((await y.toData()).values)).toEqual([11]);
  });

  it('passes records through while disabled', async () => {
    const off = new Fusion(cpu, { enabled: false });
    const records = await recorded(async () => {
      const x = fromData(off, [1, 2]);
      await tidy(() => x.add(1).mul(2)).toData();
    });
    expect(records.map((r) => r.op)).toEqual(['fromData', 'addScalar', 'mulScalar']);
  });

  it('keeps the retains of a buffered tensor (an autodiff tape) and frees everything after', async () => {
    // A backend of its own: tensors other tests dropped without dispose() are freed by the
    // finalizer whenever GC runs, which would move the shared backend's count mid-test.
    const own = new Cpu({ threads: 0, runtime, kernels: 'js' });
    const fused = new Fusion(own);
    try {
      const before = own.memory().tensors;
      const x = fromData(fused, [1, 2, 3]);
      const y = x.exp();
      fused.retain(y.handle);
      const z = y.mul(2);
      y.dispose();
      await z.toData();
      expect(fused.isLive(y.handle)).toBe(true); // the retain holds it
      fused.release(y.handle);
      expect(fused.isLive(y.handle)).toBe(false);
      x.dispose();
      z.dispose();
      expect(own.memory().tensors).toBe(before);
    } finally {
      await fused.close();
    }
  });

  it('holds external inputs disposed while their group is open', async () => {
    const x = fromData(fusion, [1, 2, 3]);
    const y = x.add(1).mul(2);
    x.dispose(); // before the group flushes
    expect(Array.from((await y.toData()).values)).toEqual([4, 6, 8]);
    y.dispose();
  });

  it('fuses casts, comparisons and where over broadcast and strided inputs', async () => {
    const x = fromData(fusion, [[-2, -1, 0], [1, 2, 3]]);
    const col = fromData(fusion, [[10], [20]]);
    const t = fromData(fusion, [[1, 2], [3, 4], [5, 6]]).transpose(); // strided [2, 3]
    let out!: Tensor<Fusion<Cpu>, 'float'>;
    let idx!: Tensor<Fusion<Cpu>, 'int'>;
    const records = await recorded(async () => {
      [out, idx] = tidy(() => {
        const pos = x.greater(0);
        const v = x.where(pos, col.neg()).add(t);
        const i = v.cast('int32').mul(3).clamp(-50, 20);
        return [v, i];
      });
      await out.toData();
    });
    // -col has shape [2, 1]: its own group, flushed when the [2, 3] group reads it.
    expect(records.map((r) => r.op)).toEqual(['neg', 'fused']);
    expect(fusedOf(records).map((a) => a.steps.map((s) => s.op))).toEqual([['greaterScalar', 'where', 'add', 'cast', 'mulScalar', 'clamp']]);
    // v = (x > 0 ? x : -col) + t
    expect(Array.from((await out.toData()).values)).toEqual([-10 + 1, -10 + 3, -10 + 5, 1 + 2, 2 + 4, 3 + 6]);
    expect(Array.from((await idx.toData()).values)).toEqual([-27, -21, -15, 9, 18, 20]);
  });

  it('fuses maskFill with a broadcast mask as one step, its value a parameter (no constant step)', async () => {
    const x = fromData(fusion, [[-2, Number.NaN, 0], [1, 2, 3]]);
    const row = fromData(fusion, [true, false, true]);
    let out!: Tensor<Fusion<Cpu>, 'float'>;
    const records = await recorded(async () => {
      out = tidy(() => x.mul(2).maskFill(row, -0.5).maskFill(x.greater(2), Number.NaN).add(1));
      await out.toData();
    });
    expect(records.map((r) => r.op)).toEqual(['fused']);
    const [program] = fusedOf(records);
    expect(program!.steps.map((s) => s.op)).toEqual(['mulScalar', 'maskFill', 'greaterScalar', 'maskFill', 'addScalar']);
    expect(program!.steps.filter((s) => s.op === 'maskFill').map((s) => s.attrs)).toEqual([{ value: -0.5 }, { value: Number.NaN }]);
    // Row mask [t, f, t] per row, then NaN where x > 2, then + 1 (by hand).
    expect(Array.from((await out.toData()).values)).toEqual([0.5, Number.NaN, 0.5, 0.5, 5, Number.NaN]);
  });

  it('works inside a Router and around one, with transfers flushing what they move', async () => {
    const a = new Cpu({ threads: 0, runtime, kernels: 'js', device: CpuDevice.named('cpu:fa') });
    const b = new Cpu({ threads: 0, runtime, kernels: 'js', device: CpuDevice.named('cpu:fb') });
    const outer = new Fusion(new Router([a, b]));
    const x = fromData(outer, [1, 2, 3], { device: outer.inner.device(0, CpuDevice.named('cpu:fa')) });
    const moved = tidy(() => x.mul(2).add(1).toDevice(outer.inner.device(1, CpuDevice.named('cpu:fb'))));
    const y = tidy(() => moved.exp().log().sub(1));
    expect(Array.from((await y.toData()).values)).toEqual([2, 4, 6]);
    const inner = new Router([new Fusion(new Cpu({ threads: 0, runtime, kernels: 'js', device: CpuDevice.named('cpu:fc') })), b]);
    const z = fromData(inner, [4, 5], { device: MultiDevice.B1(CpuDevice.named('cpu:fc')) });
    const w = tidy(() => z.sqrt().mul(z).toDevice(MultiDevice.B2(CpuDevice.named('cpu:fb'))));
    expect(Array.from((await w.toData()).values)).toEqual([8, Math.fround(Math.fround(Math.sqrt(5)) * 5)]);
    await outer.close();
    await inner.close();
  });

  it('computes full constants inside the fused loop that reads them, and submits them only when needed', async () => {
    const x = fromData(fusion, X);
    await x.toData();
    let y!: Tensor<Fusion<Cpu>, 'float'>;
    let kept!: Tensor<Fusion<Cpu>, 'float'>;
    const records = await recorded(async () => {
      y = tidy(() => {
        const zero = full(fusion, [], 0);
        const two = full(fusion, [8], 2);
        kept = keep(full(fusion, [], -1));
        return x.maximum(zero).mul(two).add(kept);
      });
      await y.toData();
    });
    // One fused loop with three constant steps; no 'full' reached the CPU backend.
    expect(records.map((r) => r.op)).toEqual(['fused']);
    expect(fusedOf(records)[0]!.steps.map((st) => st.op)).toEqual(['full', 'maximum', 'full', 'mul', 'full', 'add']);
    expect(Array.from((await y.toData()).values)).toEqual(X.map((v) => Math.max(v, 0) * 2 - 1));
    // A constant still owned is submitted when read (and when a non-elementwise op reads it).
    const later = await recorded(async () => {
      expect(Array.from((await kept.toData()).values)).toEqual([-1]);
    });
    expect(later.map((r) => r.op)).toEqual(['full']);
    const c = full(fusion, [2, 2], 3);
    const s = tidy(() => c.sum());
    expect(Array.from((await s.toData()).values)).toEqual([12]);
    // Only constants: they become ordinary inputs (a program needs one).
    const both = tidy(() => full(fusion, [3], 1.5).add(full(fusion, [3], 2)));
    expect(Array.from((await both.toData()).values)).toEqual([3.5, 3.5, 3.5]);
    // A constant freed before anything needs it never reaches the backend.
    const gone = await recorded(async () => {
      full(fusion, [4], 7).dispose();
      await Promise.resolve();
      fusion.flush();
    });
    expect(gone).toEqual([]);
    for (const t of [x, y, kept, c, s, both]) t.dispose();
  });

  it('leaves records unfused on a CPU with the wasm kernels (its five wasm passes beat the JS loop)', async () => {
    const wasm = new Cpu({ threads: 0, runtime, kernels: 'wasm', device: CpuDevice.named('cpu:fw') });
    const f = new Fusion(wasm);
    const router = new Fusion(new Router([cpu, wasm]));
    expect(f.fusesElementwise('cpu:fw')).toBe(false);
    expect(router.fusesElementwise('cpu:fw')).toBe(false);
    expect(router.fusesElementwise(cpu.device.key)).toBe(true);
    const x = fromData(f, X);
    let y!: Tensor<Fusion<Cpu>, 'float'>;
    const records = await recorded(async () => {
      y = tidy(() => gelu5(x));
      expect(f.bufferedOps).toBe(0);
      await y.toData();
    });
    expect(records.map((r) => r.op)).toEqual(['divScalar', 'erf', 'addScalar', 'mul', 'divScalar']);
    const got = Array.from((await y.toData()).values);
    got.forEach((v, i) => expect(Math.abs(v - gelu(X[i]!))).toBeLessThan(1e-6));
    await f.close();
  });

  it('gives gradients through Autodiff<Fusion<Cpu>> with the backward pass fused too', async () => {
    const ad = new Autodiff(fusion);
    const x = fromData(ad, X).requireGrad();
    let g: number[] = [];
    const records = await recorded(async () => {
      const grads = gelu5(x).sum().backward();
      g = Array.from((await x.grad(grads)!.toData()).values);
    });
    // d/dx gelu = Phi(x) + x phi(x)
    const dgelu = (v: number) => 0.5 * (1 + erfRef(v / Math.SQRT2)) + (v * Math.exp((-v * v) / 2)) / Math.sqrt(2 * Math.PI);
    g.forEach((v, i) => expect(Math.abs(v - dgelu(X[i]!))).toBeLessThan(1e-5));
    expect(records.filter((r) => r.op === 'fused').length).toBeGreaterThan(0);
  });

  it('an index that fails at run time fails only what is computed from it: independent ops of the same shape still give their values', async () => {
    const x = fromData(fusion, [1, 2, 3]);
    const idx = fromData(fusion, [0, 9, 1], { dtype: 'int32' });
    const bad = x.gather(0, idx).add(1);
    const good = x.mul(10);
    const more = [1, 2, 3].map((k) => x.add(k));
    await expect(bad.toData()).rejects.toThrow(/gather: index 9 is out of range/);
    expect(Array.from((await good.toData()).values)).toEqual([10, 20, 30]);
    for (const [k, t] of more.entries()) expect(Array.from((await t.toData()).values)).toEqual([1, 2, 3].map((v) => v + k + 1));
    for (const t of [x, idx, bad, good, ...more]) t.dispose();
  });

  it('steps that read no fallible input still make one kernel together', async () => {
    const a = fromData(fusion, [1, 2, 3]);
    const b = fromData(fusion, [4, 5, 6]);
    await Promise.all([a.toData(), b.toData()]);
    let outs: Array<Tensor<Fusion<Cpu>, 'float'>> = [];
    const records = await recorded(async () => {
      outs = [a.mul(2).add(1), b.mul(3).sub(1)];
      await Promise.all(outs.map((t) => t.toData()));
    });
    expect(records.map((r) => r.op)).toEqual(['fused']);
    expect(Array.from((await outs[1]!.toData()).values)).toEqual([11, 14, 17]);
  });
});
