/** Module.fromRecord: every entry checked before anything loads, ids kept apart, missing and unexpected names reported together. */
import { afterAll, describe, expect, it } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { ArgumentError, ShapeError } from '../../src/errors.js';
import { Linear } from '../../src/nn/linear.js';
import { Relu } from '../../src/nn/activation.js';
import type { RecordReport } from '../../src/nn/record.js';
import { Sequential } from '../../src/nn/sequential.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

const mlp = () => new Sequential<Cpu>(new Linear(cpu, 2, 3), new Relu(), new Linear(cpu, 3, 1));
const values = async (m: Sequential<Cpu>) => Promise.all(m.namedParams().map(async ([n, p]) => [n, p.id, await p.value.toArray()]));

describe('fromRecord checks every entry before loading any', () => {
  it('refuses an entry without an id, of another dtype, with non-float32 data or a bad shape, and changes nothing', async () => {
    const m = mlp();
    const before = await values(m);
    const good = (await mlp().toRecord()).params;
    // The bad entry is the last parameter: the ones before it must not have loaded.
    const last = 'layers.2.bias';
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...good[last], id: undefined }, /fromRecord: parameter 'layers.2.bias' has the id undefined in the record; ids are non-empty strings/],
      [{ ...good[last], id: '' }, /ids are non-empty strings/],
      [{ ...good[last], dtype: 'int32' }, /parameter 'layers.2.bias' has dtype "int32" \(a string\) in the record; records are float32/],
      [{ ...good[last], data: Int32Array.of(1) }, /parameter 'layers.2.bias' holds .*Int32Array in the record, not a Float32Array/],
      [{ ...good[last], data: [1] }, /not a Float32Array/],
      [{ ...good[last], shape: [1.5] }, /shapes are arrays of integers >= 0/],
    ];
    for (const [entry, message] of bad) {
      const record = { params: { ...good, [last]: entry } };
      expect(() => m.fromRecord(record as never)).toThrow(ArgumentError);
      expect(() => m.fromRecord(record as never)).toThrow(message);
    }
    expect(await values(m)).toEqual(before);
  });

  it('refuses one id for two different parameters, and accepts it for a tied one', async () => {
    const m = mlp();
    const r = await mlp().toRecord();
    const same = { params: { ...r.params, 'layers.2.weight': { ...r.params['layers.2.weight']!, id: r.params['layers.0.weight']!.id } } };
    expect(() => m.fromRecord(same)).toThrow(/fromRecord: parameters 'layers.0.weight' and 'layers.2.weight' have the same id '.*' in the record, but are different parameters/);
    const lin = new Linear(cpu, 2, 2);
    const tied = new Sequential<Cpu>(lin, new Relu(), lin);
    const tr = await tied.toRecord();
    expect(tr.params['layers.0.weight']!.id).toBe(tr.params['layers.2.weight']!.id);
    expect(() => tied.fromRecord(tr)).not.toThrow();
  });

  it('lists missing and unexpected names together when strict, and reports them when not', async () => {
    const r = await mlp().toRecord();
    const { ['layers.0.bias']: dropped, ...rest } = r.params;
    expect(dropped).toBeDefined();
    const record = { params: { ...rest, 'extra.w': r.params['layers.2.bias']! } };
    const m = mlp();
    expect(() => m.fromRecord(record)).toThrow(/fromRecord: the record has no parameter 'layers.0.bias'; the record has parameters this module lacks: extra.w/);
    const reports: RecordReport[] = [];
    m.fromRecord(record, { strict: false, report: (x) => reports.push(x) });
    expect(reports).toEqual([{ loaded: ['layers.0.weight', 'layers.2.weight', 'layers.2.bias'], missing: ['layers.0.bias'], unexpected: ['extra.w'] }]);
    expect(m.layers[0]!.params()[0]!.id).toBe(r.params['layers.0.weight']!.id);
    expect(() => m.fromRecord(record, { strict: false, report: 5 } as never)).toThrow(/report must be a function/);
    expect(() => m.fromRecord(record, { stric: false } as never)).toThrow(/unknown option 'stric'/);
    expect(() => m.fromRecord(r, { strict: 'no' } as never)).toThrow(/strict must be true or false/);
  });

  it('a shape that does not fit is still a ShapeError', async () => {
    const r = await new Linear(cpu, 3, 2).toRecord();
    expect(() => new Linear(cpu, 2, 3).fromRecord(r)).toThrow(ShapeError);
  });

  it('keeps a float16 parameter float16', async () => {
    const l = new Linear(cpu, 2, 1);
    l.weight.set(l.weight.value.cast('float16'));
    l.fromRecord(await l.toRecord());
    expect(l.weight.value.dtype).toBe('float16');
    const r = await new Linear(cpu, 2, 1).toRecord();
    expect(() => new Linear(cpu, 2, 1).fromRecord({ params: { weight: r.params['weight']! } })).toThrow(/the record has no parameter 'bias'/);
  });
});
