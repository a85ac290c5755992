import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { describeGpu } from '../wgpu/gpu.js';
import { runConformance } from './vitest-suite.js';

describeGpu('conformance on WebGPU', () => runConformance('wgpu', () => Wgpu.create(), (b) => b.close()));
