import { Cpu } from '../../src/backends/cpu/backend.js';
import { runConformance } from './vitest-suite.js';

runConformance('cpu', () => new Cpu(), (b) => b.close());
