// The CPU backend on its SIMD WebAssembly kernels (the default), inline on the calling thread.
import { Cpu } from '../../src/backends/cpu/backend.js';
import { runConformance } from './vitest-suite.js';

runConformance('cpu', () => new Cpu({ kernels: 'wasm', threads: 0 }), (b) => b.close());
