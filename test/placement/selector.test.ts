import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { StepSelector } from '../../src/placement/selector.js';

/** Runs `steps` steps, each taking what `time(candidate, i)` says; returns the candidate of each step. */
function drive(s: StepSelector, steps: number, time: (candidate: string, i: number) => number): string[] {
  const ran: string[] = [];
  for (let i = 0; i < steps; i++) {
    const c = s.current;
    ran.push(c);
    s.record(time(c, i));
  }
  return ran;
}

describe('StepSelector: the measured choice among candidate placements', () => {
  test('picks the fastest measured candidate; a tie within the hysteresis goes to the first listed', () => {
    expect(new StepSelector(new Map([['gpu', 2], ['cpu', 3], ['plan', 1.5]])).incumbent).toBe('plan');
    expect(new StepSelector(new Map([['gpu', 2], ['cpu', 3], ['plan', 1.95]])).incumbent).toBe('gpu');
    expect(new StepSelector(new Map([['gpu', Number.NaN], ['cpu', 3]])).incumbent).toBe('cpu');
    expect(() => new StepSelector(new Map())).toThrow(RangeError);
  });

  test('re-checks the others in turn (the runner-up first) on a doubling interval and keeps the incumbent unless it is beaten by more than the hysteresis', () => {
    const s = new StepSelector(new Map([['gpu', 2], ['cpu', 3], ['plan', 2.5]]), { recheckEvery: 3, trials: 2 });
    // gpu 3 steps, plan (the runner-up) 2 steps at 1.95 (not 5% below 2), gpu 6 steps, cpu (its turn)
    // 2 steps at 3, gpu 12 steps, plan 2 steps at 1.5: it takes over, and the interval starts again at 3.
    const times: Record<string, number[]> = { gpu: Array<number>(21).fill(2), cpu: [3, 3], plan: [1.95, 1.95, 1.5, 1.5] };
    const ran = drive(s, 31, (c) => times[c]!.shift() ?? 1.5);
    const runs = (c: string, n: number) => Array<string>(n).fill(c);
    expect(ran).toEqual([...runs('gpu', 3), ...runs('plan', 2), ...runs('gpu', 6), ...runs('cpu', 2), ...runs('gpu', 12), ...runs('plan', 5), 'gpu']); // then gpu's turn, 3 steps after the switch
    expect(s.incumbent).toBe('plan');
    expect(s.times().get('gpu')).toBe(2);
  });

  test('an incumbent that got slower than another candidate is re-checked early; a trial that does not confirm it ends the early checks', () => {
    // online measured 4 against cpu 5; online then takes 10 per step (it drifted): after 4 such
    // steps cpu (5 < 10 * 0.95) runs 2 steps, confirms 5 and takes over, long before step 50.
    const s = new StepSelector(new Map([['cpu', 5], ['online', 4]]), { recheckEvery: 50 });
    const ran = drive(s, 8, (c) => (c === 'online' ? 10 : 5));
    expect(ran).toEqual(['online', 'online', 'online', 'online', 'cpu', 'cpu', 'cpu', 'cpu']);
    expect(s.incumbent).toBe('cpu');
    // The same drift, but cpu's trial takes 12 (the machine slowed down): online stays, cpu's time
    // is booked at 12 and online's 10 no longer loses to it: no further early check.
    const t = new StepSelector(new Map([['cpu', 5], ['online', 4]]), { recheckEvery: 50 });
    const ran2 = drive(t, 30, (c) => (c === 'online' ? 10 : 12));
    expect(ran2).toEqual([...Array<string>(4).fill('online'), 'cpu', 'cpu', ...Array<string>(24).fill('online')]);
    expect(t.times().get('cpu')).toBe(12);
    // The incumbent slows down a little every step, and each challenger trial comes out 4% faster
    // than it (not the 5% needed): every failed early check doubles the steps the incumbent runs
    // before the next (4, 8, 16, ...), so 200 steps hold 5 of them, not one every few steps.
    const u = new StepSelector(new Map([['cpu', 5], ['online', 4]]), { recheckEvery: 1000 });
    let slow = 10;
    const ran3 = drive(u, 200, (c) => (c === 'online' ? (slow *= 1.01) : 0.96 * slow));
    const trials = ran3.filter((c, j) => c === 'cpu' && ran3[j - 1] !== 'cpu').length;
    expect(u.incumbent).toBe('online');
    expect(trials).toBe(5);
    // Slower by less than the hysteresis: no early check.
    expect(drive(new StepSelector(new Map([['cpu', 5], ['online', 4]]), { recheckEvery: 50 }), 40, (c) => (c === 'online' ? 5.2 : 5))).toEqual(Array(40).fill('online'));
  });

  test('never re-checks with recheckEvery 0 or a single candidate', () => {
    expect(drive(new StepSelector(new Map([['gpu', 2], ['cpu', 3]]), { recheckEvery: 0 }), 500, () => 1)).toEqual(Array(500).fill('gpu'));
    expect(drive(new StepSelector(new Map([['cpu', 3]]), { recheckEvery: 1 }), 50, () => 1)).toEqual(Array(50).fill('cpu'));
  });

  test('property: with steady step times, the fastest candidate ends up running, and the steps spent elsewhere are bounded', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.1, max: 10, noNaN: true }), { minLength: 2, maxLength: 4 }), fc.array(fc.double({ min: 0.1, max: 10, noNaN: true }), { minLength: 4, maxLength: 4 }), (truth, first) => {
        // The first measurements may be off (noise); later steps take their true time.
        const names = truth.map((_, i) => `c${i}`);
        const s = new StepSelector(new Map(names.map((n, i) => [n, first[i]!])), { recheckEvery: 10, maxRecheckEvery: 80, trials: 2 });
        const steps = 4000;
        const ran = drive(s, steps, (c) => truth[Number(c.slice(1))]!);
        const best = Math.min(...truth);
        // Reference: the incumbent is within the hysteresis of the true fastest.
        expect(truth[Number(s.incumbent.slice(1))]!).toBeLessThanOrEqual(best / 0.95 + 1e-12);
        // Re-checks cost at most 2 steps per interval, the interval doubling to 80: a bounded share.
        const elsewhere = ran.slice(steps / 2).filter((c) => truth[Number(c.slice(1))]! > best / 0.95 + 1e-12).length;
        expect(elsewhere).toBeLessThanOrEqual(2 * Math.ceil(steps / 2 / 80) + 2 * names.length);
      }),
      { numRuns: 200 },
    );
  });
});
