/**
 * The executor pair that runs a 'transfer' record: reads the source storage to the host through
 * the source executor (a GPU readback, or a copy out of CPU memory), carries it over a Channel,
 * and creates the destination storage through the destination executor as its 'fromData' would.
 * Both halves are asynchronous, so a transfer never blocks the thread that enqueued it; the
 * storage it makes belongs to the destination executor, so reads and releases delegate there.
 */
import type { TypedArray } from '../ir/dtype.js';
import type { OpRecord } from '../ir/ops.js';
import { inProcessChannel, type Channel } from './channel.js';
import { isPending, type ExecResult, type Executor, type PendingResult } from './executor.js';

/** How bytes travel: shown as the op event's `where`. */
export type TransferPath = 'host-copy' | 'readback' | 'upload' | 'readback+upload';

export function transferPath(from: Executor<unknown>, to: Executor<unknown>): TransferPath {
  if (from.host) return to.host ? 'host-copy' : 'upload';
  return to.host ? 'readback' : 'readback+upload';
}

export class Bridge implements Executor<unknown> {
  readonly deviceKey: string;
  readonly host: boolean;
  private readonly where: string;

  constructor(
    private readonly from: Executor<unknown>,
    private readonly to: Executor<unknown>,
    private readonly channel: Channel = inProcessChannel,
  ) {
    this.deviceKey = to.deviceKey;
    this.host = to.host;
    this.where = `${transferPath(from, to)} from ${from.deviceKey}`;
  }

  execute(record: OpRecord, inputs: readonly unknown[]): PendingResult<unknown> {
    const upload: OpRecord<'fromData'> = { id: record.id, op: 'fromData', device: this.to.deviceKey, inputs: [], outputs: record.outputs, attrs: { blob: 0 } };
    const promise = this.from
      .read(inputs[0])
      .then((data) => this.channel.send(data))
      .then((data: TypedArray) => {
        const r = this.to.execute(upload, [], data, { sync: false, timing: false });
        return isPending(r) ? r.promise : r;
      })
      .then((r): ExecResult<unknown> => ({ outputs: r.outputs, where: this.where }));
    return { promise };
  }

  read(storage: unknown): Promise<TypedArray> {
    return this.to.read(storage);
  }

  release(storage: unknown): void {
    this.to.release(storage);
  }
}
