/** The conformance table through Fusion<Cpu>, inline and with the worker pool (fused loops run on workers too). */
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Fusion } from '../../src/fusion/fusion.js';
import { runConformance } from '../conformance/vitest-suite.js';

runConformance('fusion<cpu>', () => new Fusion(new Cpu({ threads: 0 })), (b) => b.close());
runConformance('fusion<cpu> with a pool', () => new Fusion(new Cpu({ threads: 2, inlineThreshold: 64 })), (b) => b.close());
