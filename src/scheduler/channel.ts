/**
 * How a bridge's bytes travel between the two halves of a transfer. In-process today (the data is
 * handed over as is); a worker thread or a socket implements the same contract later.
 */
import type { TypedArray } from '../ir/dtype.js';

export interface Channel {
  /** Carries host data to the destination side; resolves with the data as the destination sees it. */
  send(data: TypedArray): Promise<TypedArray>;
}

export const inProcessChannel: Channel = {
  send: (data) => Promise.resolve(data),
};
