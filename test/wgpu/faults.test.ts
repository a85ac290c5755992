/** Fault inheritance: each output carries exactly the relevant faults of its inputs and of its op, once each. */
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { Fault, inheritFaults } from '../../src/backends/wgpu/faults.js';
import { KernelError } from '../../src/errors.js';

/** The reference: a set union filtered by relevance, in any order. */
function reference(inputs: ReadonlyArray<{ faults: readonly Fault[] }>, own: readonly Fault[]): Set<Fault> {
  const out = new Set<Fault>();
  for (const f of [...own, ...inputs.flatMap((s) => s.faults)]) if (!f.settled || f.error) out.add(f);
  return out;
}

test('inherited faults are the relevant union, without duplicates, for any lists', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom('open', 'ok', 'failed'), { minLength: 1, maxLength: 12 }),
      // Lists carried by storages hold each fault once (they come from this function).
      fc.array(fc.uniqueArray(fc.nat(11), { maxLength: 8 }), { maxLength: 4 }),
      fc.array(fc.nat(11), { maxLength: 3 }),
      fc.boolean(),
      (states, inputIdx, ownIdx, share) => {
        const pool = states.map((s) => {
          const f = new Fault();
          if (s === 'ok') f.ok();
          if (s === 'failed') f.fail(new KernelError('bad', { op: 'dispatch' }));
          return f;
        });
        const at = (i: number) => pool[i % pool.length]!;
        const lists = inputIdx.map((l) => [...new Set(l.map(at))]);
        // Inputs may share one list object (outputs of one op do).
        const inputs = lists.map((faults, k) => ({ faults: share && k > 0 ? lists[0]! : faults }));
        const own = ownIdx.map(at);
        const got = inheritFaults(inputs, own);
        expect(new Set(got).size).toBe(got.length);
        expect(new Set(got)).toEqual(reference(inputs, own));
      },
    ),
  );
});

test('an output whose one faulted input lists every relevant fault shares that list', () => {
  const a = new Fault();
  const b = new Fault();
  const list = [a, b];
  expect(inheritFaults([{ faults: list }, { faults: [] }], [b])).toBe(list);
  const c = new Fault();
  const merged = inheritFaults([{ faults: list }], [c]);
  expect(merged).not.toBe(list);
  expect(new Set(merged)).toEqual(new Set([a, b, c]));
  a.ok();
  // A settled (ok) fault is no longer carried: the list is rebuilt without it.
  expect(inheritFaults([{ faults: list }], [])).toEqual([b]);
});
