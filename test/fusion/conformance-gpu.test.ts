/** The conformance table through Fusion<Wgpu>. */
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { Fusion } from '../../src/fusion/fusion.js';
import { runConformance } from '../conformance/vitest-suite.js';
import { describeGpu } from '../wgpu/gpu.js';

describeGpu('conformance through fusion<wgpu>', () => runConformance('fusion<wgpu>', async () => new Fusion(await Wgpu.create()), (b) => b.close()));
