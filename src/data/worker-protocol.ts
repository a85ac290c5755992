/** Messages between a WorkerDataLoader and its worker thread. */
export type ToWorker =
  | { readonly type: 'init'; readonly module: string; readonly exportName: string; readonly args: unknown }
  | { readonly type: 'batch'; readonly id: number; readonly indices: Int32Array };

export type FromWorker =
  | { readonly type: 'ready'; readonly length: number }
  | { readonly type: 'batch'; readonly id: number; readonly batch: unknown }
  | { readonly type: 'error'; readonly id: number | undefined; readonly message: string };
