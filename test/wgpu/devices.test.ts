import { describe, expect, test } from 'vitest';
import { WgpuDevice } from '../../src/devices/wgpu.js';
import { ArgumentError } from '../../src/errors.js';
import { classifyAdapter } from '../../src/backends/wgpu/adapter.js';
import { sizeClass } from '../../src/backends/wgpu/buffers.js';

describe('WgpuDevice tags', () => {
  test('keys name the kind and index', () => {
    expect(WgpuDevice.Default.key).toBe('wgpu:default');
    expect(WgpuDevice.DiscreteGpu(1).key).toBe('wgpu:discrete:1');
    expect(WgpuDevice.IntegratedGpu().key).toBe('wgpu:integrated:0');
    expect(WgpuDevice.VirtualGpu(2).key).toBe('wgpu:virtual:2');
    expect(WgpuDevice.Cpu.key).toBe('wgpu:cpu');
    expect(WgpuDevice.byName('llvmpipe').key).toBe('wgpu:name:llvmpipe');
  });

  test('tags are frozen plain objects that survive JSON and structuredClone', () => {
    const d = WgpuDevice.DiscreteGpu(3);
    expect(Object.isFrozen(d)).toBe(true);
    expect(JSON.parse(JSON.stringify(d))).toEqual({ backend: 'wgpu', key: 'wgpu:discrete:3', kind: 'discrete', index: 3 });
    expect(structuredClone(WgpuDevice.byName('NVIDIA'))).toEqual({ backend: 'wgpu', key: 'wgpu:name:NVIDIA', kind: 'name', index: 0, name: 'NVIDIA' });
    expect(WgpuDevice.is(d)).toBe(true);
    expect(WgpuDevice.is({ backend: 'cpu', key: 'cpu' })).toBe(false);
  });

  test('bad indices and empty names are rejected', () => {
    expect(() => WgpuDevice.DiscreteGpu(-1)).toThrow(ArgumentError);
    expect(() => WgpuDevice.IntegratedGpu(1.5)).toThrow(ArgumentError);
    expect(() => WgpuDevice.byName('')).toThrow(ArgumentError);
  });

  test('adapters are classified from their info', () => {
    const info = (vendor: string, description: string, isFallbackAdapter = false) => ({ vendor, architecture: '', device: '', description, isFallbackAdapter });
    expect(classifyAdapter(info('mesa', 'llvmpipe (LLVM 15.0.6, 256 bits)'))).toBe('cpu');
    expect(classifyAdapter(info('google', 'SwiftShader Device'))).toBe('cpu');
    expect(classifyAdapter(info('nvidia', 'NVIDIA H200'))).toBe('discrete');
    expect(classifyAdapter(info('intel', 'Intel(R) UHD Graphics 630'))).toBe('integrated');
    expect(classifyAdapter(info('mesa', 'Virtio-GPU Venus'))).toBe('virtual');
    expect(classifyAdapter(info('x', 'y', true))).toBe('cpu');
  });
});

describe('buffer size classes', () => {
  test('powers of two from 256 B to 1 MiB, then eighths', () => {
    expect(sizeClass(1)).toBe(256);
    expect(sizeClass(257)).toBe(512);
    expect(sizeClass(1 << 20)).toBe(1 << 20);
    expect(sizeClass((1 << 20) + 1)).toBe((1 << 20) + (1 << 18));
    expect(sizeClass(5_000_000)).toBe(5 * (1 << 20));
    // Never above the binding limit: an exact (16-aligned) size instead.
    expect(sizeClass(1000, 1000)).toBe(1008);
  });
});
