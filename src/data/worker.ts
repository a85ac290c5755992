/**
 * The data worker: imports the dataset module, builds the dataset (and its collate, when the
 * module exports `collate`), then answers batch requests with collated batches whose buffers it
 * transfers to the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { defaultCollate } from './collate.js';
import type { Dataset } from './dataset.js';
import { forTransfer, viewedBuffers } from './host-tensor.js';
import type { FromWorker, ToWorker } from './worker-protocol.js';

const port = parentPort!;
let dataset: Dataset<unknown> | undefined;
let collate: (samples: readonly unknown[]) => unknown = defaultCollate;

function reply(m: FromWorker, transfer: ArrayBuffer[] = []): void {
  port.postMessage(m, transfer);
}

port.on('message', async (m: ToWorker) => {
  if (m.type === 'init') {
    try {
      const mod = (await import(m.module)) as Record<string, unknown>;
      const make = mod[m.exportName];
      if (typeof make !== 'function') throw new Error(`the module exports no function '${m.exportName}'`);
      dataset = (await (make as (args: unknown) => unknown)(m.args)) as Dataset<unknown>;
      if (typeof dataset?.length !== 'number' || typeof dataset.get !== 'function') throw new Error(`'${m.exportName}' did not return a dataset (length and get)`);
      if (!Number.isSafeInteger(dataset.length) || dataset.length < 0) throw new Error(`'${m.exportName}' returned a dataset whose length is not an integer >= 0: ${dataset.length}`);
      if (typeof mod.collate === 'function') collate = mod.collate as typeof collate;
      reply({ type: 'ready', length: dataset.length });
    } catch (e) {
      reply({ type: 'error', id: undefined, message: e instanceof Error ? e.message : String(e) });
    }
    return;
  }
  try {
    const samples = Array.from(m.indices, (i) => dataset!.get(i));
    // Samples may view the dataset's memory, and a collate may pass such views on: never transfer those.
    const { batch, transfer } = forTransfer(collate(samples), viewedBuffers(samples));
    reply({ type: 'batch', id: m.id, batch }, transfer);
  } catch (e) {
    reply({ type: 'error', id: m.id, message: e instanceof Error ? e.message : String(e) });
  }
});
