/** Autodiff behaviour beyond single-op gradients: cuts, scopes, detach, accumulation, devices, errors. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import { noGrad } from '../../src/autodiff/grad-mode.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { ArgumentError, DTypeError } from '../../src/errors.js';
import { tidy } from '../../src/memory/tidy.js';
import { Router } from '../../src/router/router.js';
import { scheduler } from '../../src/runtime/default.js';
import { fromData } from '../../src/tensor/creation.js';

const ad = new Autodiff(new Cpu({ threads: 0 }));
afterAll(() => ad.close());

async function values(t: { toData(): Promise<{ values: ArrayLike<number> }> } | undefined): Promise<number[]> {
  expect(t).toBeDefined();
  return Array.from((await t!.toData()).values);
}

describe('Autodiff', () => {
  it('is named after the backend it wraps and is an autodiff backend', () => {
    expect(ad.name).toBe('autodiff<cpu>');
    expect(ad.autodiff).toBe(true);
    expect(new Cpu({ threads: 0 }).autodiff).toBe(false);
  });

  it('tracks only what descends from a tensor that requires grad', () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const c = fromData(ad, [3, 4]);
    expect(x.requiresGrad).toBe(true);
    expect(c.requiresGrad).toBe(false);
    expect(c.exp().requiresGrad).toBe(false);
    expect(x.mul(c).requiresGrad).toBe(true);
  });

  it('cuts the graph at argmax, comparisons and int/bool casts', async () => {
    const x = fromData(ad, [[1, -2, 3], [0.5, 4, -1]]).requireGrad();
    expect(x.argmax(1).requiresGrad).toBe(false);
    expect(x.greater(0).requiresGrad).toBe(false);
    expect(x.cast('int32').requiresGrad).toBe(false);
    expect(x.isNan().requiresGrad).toBe(false);
    // relu by hand: the mask is a constant, so the gradient is the mask itself.
    const mask = x.greater(0).cast('float32');
    const grads = x.mul(mask).sum().backward();
    expect(await values(x.grad(grads))).toEqual([1, 0, 1, 1, 1, 0]);
  });

  it('backward through a cut only leaves no gradient', () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const y = fromData(ad, [1, 1]).requireGrad();
    const loss = x.argmax().cast('float32').add(y.sum());
    const grads = loss.backward();
    expect(x.grad(grads)).toBeUndefined();
    expect(y.grad(grads)).toBeDefined();
  });

  it('sums the gradients of a tensor used several times', async () => {
    const x = fromData(ad, [1, 2, 3]).requireGrad();
    // d/dx (x*x + 3x + x) = 2x + 4
    const grads = x.mul(x).add(x.mul(3)).add(x).sum().backward();
    expect(await values(x.grad(grads))).toEqual([6, 8, 10]);
    const y = fromData(ad, [2]).requireGrad();
    const g2 = y.add(y).backward();
    expect(await values(y.grad(g2))).toEqual([2]);
  });

  it('a leaf as the root gets a gradient of ones', async () => {
    const x = fromData(ad, [[1, 2]]).requireGrad();
    expect(await values(x.grad(x.backward()))).toEqual([1, 1]);
  });

  it('keeps the gradient of an op output that requireGrad() was called on', async () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const h = x.mul(3).requireGrad();
    const grads = h.square().sum().backward();
    expect(await values(h.grad(grads))).toEqual([6, 12]);
    expect(await values(x.grad(grads))).toEqual([18, 36]);
  });

  it('records nothing inside noGrad, and rejects async functions', () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const y = noGrad(() => x.mul(2));
    expect(y.requiresGrad).toBe(false);
    expect(x.mul(2).requiresGrad).toBe(true);
    expect(() => noGrad(async () => x.mul(2))).toThrow(ArgumentError);
    expect(x.mul(2).requiresGrad).toBe(true);
  });

  it('detach() gives an untracked view with the same values', async () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const d = x.mul(2).detach();
    expect(d.requiresGrad).toBe(false);
    expect(await values(d)).toEqual([2, 4]);
    const grads = x.mul(d).sum().backward();
    expect(await values(x.grad(grads))).toEqual([2, 4]);
  });

  it('only float tensors may require grad', () => {
    const i = fromData(ad, new Int32Array([1, 2]));
    expect(() => ad.requireGrad(i.handle)).toThrow(DTypeError);
  });

  it('backward of an untracked tensor is an error that says what to do', () => {
    const c = fromData(ad, [1, 2]);
    expect(() => c.backward()).toThrow(/requireGrad/);
  });

  it('a graph backpropagated once cannot be used again, unless retained', async () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const loss = x.exp().sum();
    const first = loss.backward({ retainGraph: true });
    const second = loss.backward();
    expect(await values(x.grad(second))).toEqual(await values(x.grad(first)));
    expect(() => loss.backward()).toThrow(/already used by a backward pass/);
  });

  it('frees what backward consumed: only the leaves and the loss outlive the step', () => {
    const x = fromData(ad, [[1, 2], [3, 4]]).requireGrad();
    const w = fromData(ad, [[0.5], [-1]]).requireGrad();
    const before = scheduler.liveSlots;
    const loss = tidy(() => x.matmul(w).tanh().exp().mul(x.sum(1, true)).mean());
    const grads = loss.backward();
    // loss and the two gradients
    expect(scheduler.liveSlots).toBe(before + 3);
    grads.dispose();
    loss.dispose();
    expect(scheduler.liveSlots).toBe(before);
  });

  it('gradients survive the tidy scope that returns the container, and die with one that does not', async () => {
    const x = fromData(ad, [1, 2]).requireGrad();
    const kept = tidy(() => x.square().sum().backward());
    expect(await values(x.grad(kept))).toEqual([2, 4]);
    const before = scheduler.liveSlots;
    tidy(() => {
      x.square().sum().backward();
    });
    expect(scheduler.liveSlots).toBe(before);
  });

  it('splits the gradient of maximum between tied inputs (as PyTorch)', async () => {
    const a = fromData(ad, [1, 2, 3]).requireGrad();
    const b = fromData(ad, [1, 5, 0]).requireGrad();
    const grads = a.maximum(b).sum().backward();
    expect(await values(a.grad(grads))).toEqual([0.5, 0, 1]);
    expect(await values(b.grad(grads))).toEqual([0.5, 1, 0]);
  });
});

describe('Autodiff over a Router', () => {
  const A = CpuDevice.named('cpu:ra');
  const B = CpuDevice.named('cpu:rb');
  const router = new Router([new Cpu({ threads: 0, device: A }), new Cpu({ threads: 0, device: B })]);
  const ar = new Autodiff(router);
  afterAll(() => ar.close());

  it('is named autodiff<router<...>>', () => {
    expect(ar.name).toBe('autodiff<router<cpu, cpu>>');
  });

  it('computes each gradient on the device of its forward op, and sends a transfer gradient back', async () => {
    const onA = router.device(0, A);
    const onB = router.device(1, B);
    const x = fromData(ar, [1, 2, 3], { device: onA }).requireGrad();
    const devices = new Map<string, Set<string>>();
    const sub = scheduler.events$.subscribe((e) => {
      let s = devices.get(e.op);
      if (!s) devices.set(e.op, (s = new Set()));
      s.add(e.device);
    });
    const loss = x.toDevice(onB).exp().sum();
    const grads = loss.backward();
    const g = x.grad(grads)!;
    expect(g.device.key).toBe(onA.key);
    expect(await values(g)).toEqual([Math.exp(1), Math.exp(2), Math.exp(3)].map(Math.fround));
    sub.unsubscribe();
    // exp's gradient (a mul by the saved output) ran on B, where exp ran.
    expect([...(devices.get('mul') ?? [])]).toEqual([onB.key]);
    expect([...(devices.get('transfer') ?? [])].sort()).toEqual([onA.key, onB.key].sort());
  });
});
