/** What a CPU backend with wasm kernels owns: one shared memory, its heap, and what its workers need to join it. */
import { WasmHeapAllocator } from '../allocator.js';
import type { WorkerSetup } from '../worker.js';
import { kernelModule } from './module.js';
import { MAX_PAGES, WasmRuntime } from './runtime.js';

export interface WasmHeap {
  readonly allocator: WasmHeapAllocator;
  /** For the pool's workers: the same memory and the compiled module (no recompilation per thread). */
  readonly workerSetup: Omit<WorkerSetup, 'flags' | 'counters' | 'finished' | 'loaded'>;
}

export function createWasmHeap(): WasmHeap {
  const compiled = kernelModule();
  const memory = new WebAssembly.Memory({ initial: 1, maximum: MAX_PAGES, shared: true });
  return {
    allocator: new WasmHeapAllocator(new WasmRuntime(memory, compiled)),
    workerSetup: { kernels: 'wasm', memory, module: compiled.module, relaxed: compiled.relaxed },
  };
}
