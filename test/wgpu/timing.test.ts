import { afterAll, beforeAll, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { random, scheduler, type OpEvent } from '../../src/index.js';
import { clock } from '../../src/scheduler/clock.js';
import { describeGpu } from './gpu.js';

describeGpu('GPU op timing', () => {
  let w: Wgpu;
  beforeAll(async () => {
    w = await Wgpu.create();
  });
  afterAll(() => w.close());

  test("a GPU op's event ends no earlier than the GPU's own completion of that work", async () => {
    const queue = w.exec(w.defaultDevice()).context!.device.queue;
    const original = queue.onSubmittedWorkDone.bind(queue);
    // Every completion the executor asks the queue for is stamped here first (causally before its event).
    const completions: number[] = [];
    queue.onSubmittedWorkDone = async (): Promise<undefined> => {
      await original();
      completions.push(clock.now());
      return undefined;
    };
    const events: OpEvent[] = [];
    const sub = scheduler.events$.subscribe((e) => events.push(e));
    try {
      const a = random(w, [256, 256]);
      const b = random(w, [256, 256]);
      const c = a.matmul(b);
      const returnedAt = clock.now();
      await c.toData();
      // The read's own submission completes too; wait for the op's event.
      while (!events.some((e) => e.op === 'matmul')) await new Promise((r) => setTimeout(r, 1));
      const mm = events.find((e) => e.op === 'matmul')!;
      expect(mm.where).toBe('gpu');
      expect(completions.length).toBeGreaterThan(0);
      // The event's end is the queue's completion of the batch that held the matmul, not the
      // moment encoding returned.
      expect(mm.endAt).toBeGreaterThanOrEqual(completions[0]!);
      expect(completions[0]!).toBeGreaterThanOrEqual(returnedAt);
      expect(mm.record.inputs.map((m) => m.shape)).toEqual([
        [256, 256],
        [256, 256],
      ]);
    } finally {
      sub.unsubscribe();
      queue.onSubmittedWorkDone = original;
    }
  });

  test("a GPU op's event says when its batch was submitted: after the turn that encoded it ended, not at its encoding", async () => {
    const events: OpEvent[] = [];
    const sub = scheduler.events$.subscribe((e) => events.push(e));
    try {
      const a = random(w, [64, 64]);
      const c = a.exp();
      // The batch is submitted when this turn ends: the clock reads 1 s later by then (a virtual
      // clock stands for a turn that ran inline CPU work after encoding).
      const encodedBy = clock.now();
      const later = encodedBy + 1000;
      clock.delegate = { now: () => later };
      await Promise.resolve();
      clock.delegate = undefined;
      await c.toData();
      while (!events.some((e) => e.op === 'exp')) await new Promise((r) => setTimeout(r, 1));
      const ev = events.find((e) => e.op === 'exp')!;
      expect(ev.startAt).toBeLessThanOrEqual(encodedBy);
      expect(ev.submitAt).toBe(later);
    } finally {
      clock.delegate = undefined;
      sub.unsubscribe();
    }
  });
});
