// The CPU backend on the JS reference kernels, inline.
import { Cpu } from '../../src/backends/cpu/backend.js';
import { runConformance } from './vitest-suite.js';

runConformance('cpu-js', () => new Cpu({ kernels: 'js', threads: 0 }), (b) => b.close());
