/**
 * The conformance table through Fusion<Cpu>. The fused loop is JS, so Fusion fuses on the CPU only
 * with the JS kernels (inline, and on the worker pool: fused loops run on workers too); with the
 * default wasm kernels it passes records through, and the table must still hold.
 */
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Fusion } from '../../src/fusion/fusion.js';
import { runConformance } from '../conformance/vitest-suite.js';

runConformance('fusion<cpu js>', () => new Fusion(new Cpu({ threads: 0, kernels: 'js' })), (b) => b.close());
runConformance('fusion<cpu js> with a pool', () => new Fusion(new Cpu({ threads: 2, inlineThreshold: 64, kernels: 'js' })), (b) => b.close());
runConformance('fusion<cpu wasm> (records pass through)', () => new Fusion(new Cpu({ threads: 0 })), (b) => b.close());
