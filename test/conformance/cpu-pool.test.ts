// The CPU backend on its wasm kernels with every splittable kernel on its worker pool (two threads, inline threshold 0).
import { Cpu } from '../../src/backends/cpu/backend.js';
import { runConformance } from './vitest-suite.js';

runConformance('cpu-pool', () => new Cpu({ kernels: 'wasm', threads: 2, inlineThreshold: 0 }), (b) => b.close());
