/**
 * Synthetic op events for the placement tests: records built by hand, times made up, one run
 * after another on each lane (so each run's device time is exactly what the test says).
 */
import { Subject } from 'rxjs';
import type { DType } from '../../src/ir/dtype.js';
import { bytesPerElement } from '../../src/ir/dtype.js';
import { buildOp, buildTransfer, type IdAllocator } from '../../src/ir/builder.js';
import type { OpAttrs, OpName, OpRecord } from '../../src/ir/ops.js';
import type { OpEvent } from '../../src/scheduler/events.js';

export interface Meta {
  readonly shape: readonly number[];
  readonly dtype: DType;
}

const bytes = (m: Meta): number => m.shape.reduce((a, b) => a * b, 1) * bytesPerElement(m.dtype);

export class SyntheticEvents {
  readonly subject = new Subject<OpEvent>();
  private t = 1000;
  private id = 1_000_000;
  private readonly ids: IdAllocator = { tensor: () => this.id++, op: () => this.id++ };

  private inputs(metas: readonly Meta[], device: string) {
    return metas.map((m) => ({ id: this.id++, shape: m.shape, dtype: m.dtype, device: { backend: 'cpu', key: device } }));
  }

  /** The event of one record on `device` that ran from `start` for `ms`. */
  event(record: OpRecord, ms: number, where = 'inline', start = this.t): OpEvent {
    this.t = Math.max(this.t, start + ms) + 1;
    return {
      record,
      opId: record.id,
      op: record.op,
      device: record.device,
      inputBytes: record.inputs.reduce((a, m) => a + bytes(m), 0),
      outputBytes: record.outputs.reduce((a, m) => a + bytes(m), 0),
      queueDepth: 0,
      queuedAt: start,
      startAt: start,
      endAt: start + ms,
      where,
    };
  }

  /** `n` runs of an op over inputs of these metas on `device`, each taking `ms` (records built as the tensor API builds them). */
  op<N extends OpName>(op: N, inputs: readonly Meta[], attrs: OpAttrs[N], device: string, ms: number, n: number): void {
    for (let i = 0; i < n; i++) this.subject.next(this.event(buildOp(this.ids, op, this.inputs(inputs, device), attrs).record, ms));
  }

  /** `n` transfers of `count` float32 values from one device to another, each taking `ms`. */
  transfer(from: string, to: string, count: number, ms: number, n: number): void {
    for (let i = 0; i < n; i++) {
      const [input] = this.inputs([{ shape: [count], dtype: 'float32' }], from);
      this.subject.next(this.event(buildTransfer(this.ids, input!, { backend: 'cpu', key: to }).record, ms, `host-copy from ${from}`));
    }
  }
}
