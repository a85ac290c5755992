/** Learning-rate schedules against PyTorch's closed forms, evaluated independently here. */
import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../../src/errors.js';
import { CosineLR, ExponentialLR, LinearLR, OneCycleLR, ReduceLROnPlateau, StepLR } from '../../src/optim/lr-scheduler.js';

const rates = (s: { next(base: number): number }, base: number, n: number) => Array.from({ length: n }, () => s.next(base));
const close = (a: number[], b: number[]) => a.forEach((v, i) => expect(v, `step ${i}`).toBeCloseTo(b[i]!, 12));

describe('schedules', () => {
  it('StepLR and ExponentialLR', () => {
    close(rates(new StepLR({ stepSize: 3, gamma: 0.5 }), 1, 7), [1, 1, 1, 0.5, 0.5, 0.5, 0.25]);
    close(rates(new ExponentialLR(0.9), 2, 3), [2, 1.8, 1.62]);
  });

  it('LinearLR decays linearly and holds', () => {
    close(rates(new LinearLR({ totalSteps: 4, startFactor: 1, endFactor: 0.2 }), 1, 6), [1, 0.8, 0.6, 0.4, 0.2, 0.2]);
    close(rates(new LinearLR({ totalSteps: 2, startFactor: 1 / 3, endFactor: 1 }), 3, 3), [1, 2, 3]);
  });

  it("LinearLR's defaults are torch's: a warm-up from 1/3 to 1 over 5 steps; factors outside torch's ranges are refused", () => {
    // torch: lr = base * (1/3 + (1 - 1/3) * min(t, 5) / 5)
    close(rates(new LinearLR(), 0.3, 7), [0, 1, 2, 3, 4, 5, 5].map((t) => 0.3 * (1 / 3 + ((2 / 3) * t) / 5)));
    close(rates(new LinearLR({ totalSteps: 2 }), 3, 3), [1, 2, 3]);
    for (const bad of [{ startFactor: 0 }, { startFactor: 1.5 }, { endFactor: -0.1 }, { endFactor: Number.NaN }, { totalSteps: 0 }, { startFactor: '0.5' as unknown as number }]) {
      expect(() => new LinearLR(bad), JSON.stringify(bad)).toThrow(ArgumentError);
    }
    expect(() => new LinearLR({ startFactor: 0 })).toThrow(/LinearLR: startFactor must be a number in \(0, 1\], got 0/);
  });

  it('CosineLR with warm-up: t / w, then minLr + (base - minLr)(1 + cos(pi p)) / 2', () => {
    const got = rates(new CosineLR({ totalSteps: 10, warmupSteps: 2, minLr: 0.1 }), 1, 12);
    const want = Array.from({ length: 12 }, (_, t) => (t < 2 ? t / 2 : 0.1 + (0.9 * (1 + Math.cos((Math.PI * Math.min(1, (t - 2) / 8))))) / 2));
    close(got, want);
    expect(got[6]).toBeCloseTo(0.55, 12);
    expect(() => new CosineLR({ totalSteps: 5, warmupSteps: 5 })).toThrow(ArgumentError);
  });

  it('OneCycleLR: as torch.optim.lr_scheduler.OneCycleLR (cos and linear)', () => {
    const max = 0.1;
    const total = 10;
    const init = max / 25;
    const min = init / 1e4;
    const upEnd = 0.3 * total - 1;
    const cos = (a: number, b: number, p: number) => b + ((a - b) / 2) * (1 + Math.cos(Math.PI * p));
    const lin = (a: number, b: number, p: number) => (b - a) * p + a;
    for (const [anneal, f] of [['cos', cos], ['linear', lin]] as const) {
      const want = Array.from({ length: total }, (_, t) => (t <= upEnd ? f(init, max, t / upEnd) : f(max, min, (t - upEnd) / (total - 1 - upEnd))));
      close(rates(new OneCycleLR({ maxLr: max, totalSteps: total, anneal }), 123, total), want);
    }
    const s = new OneCycleLR({ maxLr: 1, totalSteps: 4 });
    expect(rates(s, 1, 4)[0]).toBeCloseTo(1 / 25, 12);
  });

  it('ReduceLROnPlateau: patience, threshold, cooldown, minLr', () => {
    const s = new ReduceLROnPlateau({ patience: 1, factor: 0.5, cooldown: 1, minLr: 0.2 });
    expect(s.next(1)).toBe(1);
    const seen: number[] = [];
    for (const metric of [1, 0.99999, 0.99999, 0.5, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6]) {
      s.observe(metric);
      seen.push(s.next(1));
    }
    // 0.99999 is within the relative threshold (1e-4) of 1: no improvement. Two bad in a row
    // (more than patience 1) halve the rate; the cooldown then clears the count once; floored at 0.2.
    close(seen, [1, 1, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.2, 0.2, 0.2]);
    const max = new ReduceLROnPlateau({ mode: 'max', patience: 0, thresholdMode: 'abs', threshold: 0.1 });
    max.next(1);
    max.observe(0.5);
    expect(max.observe(0.55)).toBe(true);
    expect(max.next(1)).toBeCloseTo(0.1, 12);
    const restored = new ReduceLROnPlateau({ mode: 'max', patience: 0, thresholdMode: 'abs', threshold: 0.1 });
    restored.loadState(max.state());
    expect(restored.next(1)).toBeCloseTo(0.1, 12);
    expect(() => new StepLR({ stepSize: 1 }).loadState(max.state())).toThrow(/kind 'plateau'/);
  });
});
