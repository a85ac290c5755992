// The CPU backend on its wasm kernels with every splittable kernel on its worker pool (two threads, no inline threshold).
import { Cpu } from '../../src/backends/cpu/backend.js';
import { runConformance } from './vitest-suite.js';

runConformance('cpu-pool', () => new Cpu({ kernels: 'wasm', threads: 2, inlineThreshold: 1 }), (b) => b.close());
