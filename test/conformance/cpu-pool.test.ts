// The CPU backend with every splittable kernel on its worker pool (two threads, no inline threshold).
import { Cpu } from '../../src/backends/cpu/backend.js';
import { runConformance } from './vitest-suite.js';

runConformance('cpu-pool', () => new Cpu({ threads: 2, inlineThreshold: 1 }), (b) => b.close());
