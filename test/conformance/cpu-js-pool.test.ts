// The CPU backend on the JS reference kernels with every splittable kernel on its worker pool.
import { Cpu } from '../../src/backends/cpu/backend.js';
import { runConformance } from './vitest-suite.js';

runConformance('cpu-js-pool', () => new Cpu({ kernels: 'js', threads: 2, inlineThreshold: 0 }), (b) => b.close());
