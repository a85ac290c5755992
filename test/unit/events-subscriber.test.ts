/**
 * A subscriber of a public stream that throws must not end the process (RxJS would rethrow its
 * error in a setTimeout: an uncaught exception in Node), stop the scheduler or starve the other
 * subscribers: it is unsubscribed and reported once as a SubscriberError warning.
 */
import { config, filter, map, Subject, take } from 'rxjs';
import { afterAll, afterEach, beforeEach, describe, expect, test, vi, type MockInstance } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { fromData, scheduler, SubscriberError, type OpEvent } from '../../src/index.js';
import { Profiler } from '../../src/placement/profiler.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

/** What RxJS would have rethrown in a setTimeout (collected here instead of ending the test process). */
let unhandled: unknown[] = [];
let warnings: MockInstance<typeof process.emitWarning>;

beforeEach(() => {
  unhandled = [];
  config.onUnhandledError = (e) => unhandled.push(e);
  warnings = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
});

afterEach(async () => {
  // RxJS reports in a zero-delay timeout; one queued now runs after it.
  await new Promise((resolve) => setTimeout(resolve, 0));
  config.onUnhandledError = null;
  warnings.mockRestore();
  expect(unhandled).toEqual([]);
});

function reported(): SubscriberError[] {
  return warnings.mock.calls.map((c) => c[0]).filter((w) => w instanceof SubscriberError);
}

/** Runs a few ops and checks their values: [fromData, add, mul] then [addScalar]. */
async function work(): Promise<void> {
  const a = fromData(cpu, [1, 2]);
  const b = a.add(a).mul(a);
  expect(await b.toArray()).toEqual([2, 8]);
  expect(await b.add(1).toArray()).toEqual([3, 9]);
}

const OPS = ['fromData', 'add', 'mul', 'addScalar'];

describe('events$ and subscribers of another rxjs copy', () => {
  test("a subscriber that is not this copy's Subscriber class (an app on another rxjs 7.x) is subscribed as it is: its unsubscribe reaches the stream", async () => {
    const seen: string[] = [];
    const teardowns: Array<() => void> = [];
    // The shape rxjs's own isSubscriber test accepts: an observer that is also a subscription.
    const foreign = {
      closed: false,
      next: (e: OpEvent) => seen.push(e.op),
      error: () => undefined,
      complete: () => undefined,
      add: (t: (() => void) | { unsubscribe(): void } | null | undefined) => {
        if (t) teardowns.push(typeof t === 'function' ? t : () => t.unsubscribe());
      },
      remove: () => undefined,
      unsubscribe: () => {
        foreign.closed = true;
        for (const t of teardowns.splice(0)) t();
      },
    };
    scheduler.events$.subscribe(foreign);
    await work();
    expect(seen).toEqual(OPS);
    foreign.unsubscribe();
    await work();
    expect(seen).toEqual(OPS);
  });
});

describe('events$ subscribers that throw', () => {
  test('one that throws on every event is unsubscribed and reported once; ops complete and the others get every event', async () => {
    const seen: string[] = [];
    const good = scheduler.events$.subscribe((e) => seen.push(e.op));
    const boom = new Error('boom');
    let calls = 0;
    const bad = scheduler.events$.subscribe(() => {
      calls++;
      throw boom;
    });
    await work();
    good.unsubscribe();
    expect(seen).toEqual(OPS);
    expect(calls).toBe(1);
    expect(bad.closed).toBe(true);
    expect(scheduler.pendingOps).toBe(0);
    const [w, ...more] = reported();
    expect(more).toEqual([]);
    expect(w).toBeInstanceOf(SubscriberError);
    expect(w!.op).toBe('events$');
    expect(w!.cause).toBe(boom);
    expect(w!.message).toMatch(/^events\$: a subscriber threw \(boom\) and was unsubscribed/);
    expect(w!.hint).toContain('README');
  });

  test('one that throws once (on the second event) got the events before it, and no more', async () => {
    const seen: string[] = [];
    const mine: string[] = [];
    const good = scheduler.events$.subscribe((e) => seen.push(e.op));
    const bad = scheduler.events$.subscribe((e) => {
      mine.push(e.op);
      if (mine.length === 2) throw new Error('only once');
    });
    await work();
    good.unsubscribe();
    expect(mine).toEqual(['fromData', 'add']);
    expect(seen).toEqual(OPS);
    expect(bad.closed).toBe(true);
    expect(reported().map((w) => w.message)).toEqual([expect.stringContaining('events$: a subscriber threw (only once)')]);
  });

  test('through pipe(): a throwing next, an operator that throws with no error callback, a throwing error or complete callback', async () => {
    const seen: string[] = [];
    const good = scheduler.events$.pipe(map((e) => e.op)).subscribe((op) => seen.push(op));
    const subs = [
      scheduler.events$.pipe(map((e) => e.op), filter((op) => op === 'add')).subscribe(() => {
        throw new Error('piped next');
      }),
      scheduler.events$.pipe(map(() => { throw new Error('operator'); })).subscribe(() => undefined),
      scheduler.events$.pipe(map(() => { throw new Error('operator 2'); })).subscribe({ error: () => { throw new Error('error callback'); } }),
      scheduler.events$.pipe(take(1)).subscribe({ complete: () => { throw new Error('complete callback'); } }),
    ];
    await work();
    good.unsubscribe();
    expect(seen).toEqual(OPS);
    expect(subs.map((s) => s.closed)).toEqual([true, true, true, true]);
    const messages = reported().map((w) => w.message);
    expect(messages).toHaveLength(4);
    for (const m of ['piped next', 'operator', 'error callback', 'complete callback']) expect(messages).toContainEqual(expect.stringContaining(`events$: a subscriber threw (${m})`));
  });

  test("with RxJS's synchronous error handling on, a throw does not unwind through the scheduler", async () => {
    config.useDeprecatedSynchronousErrorHandling = true;
    try {
      const bad = scheduler.events$.subscribe(() => {
        throw new Error('sync');
      });
      await work();
      expect(bad.closed).toBe(true);
      expect(scheduler.pendingOps).toBe(0);
      expect(reported()).toHaveLength(1);
    } finally {
      config.useDeprecatedSynchronousErrorHandling = false;
    }
  });

  test("the profiler's samples$ is guarded the same way", async () => {
    const events: OpEvent[] = [];
    const sub = scheduler.events$.subscribe((e) => events.push(e));
    await fromData(cpu, [1, 2]).neg().toArray();
    sub.unsubscribe();
    const profiler = new Profiler(new Subject<OpEvent>(), { persist: false, enabled: false });
    const got: number[] = [];
    const good = profiler.samples$.subscribe((s) => got.push(s.ms));
    const bad = profiler.samples$.subscribe(() => {
      throw new Error('sample');
    });
    profiler.observe({ event: events[1]!, ms: 1 });
    profiler.observe({ event: events[1]!, ms: 2 });
    good.unsubscribe();
    expect(got).toEqual([1, 2]);
    expect(profiler.samples).toBe(2);
    expect(bad.closed).toBe(true);
    expect(reported().map((w) => w.op)).toEqual(['samples$']);
  });
});
