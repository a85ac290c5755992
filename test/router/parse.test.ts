/** Device strings, per family, without any backend or adapter. */
import { describe, expect, test } from 'vitest';
import { CpuDevice } from '../../src/devices/cpu.js';
import { WgpuDevice } from '../../src/devices/wgpu.js';
import { parseInnerDevice } from '../../src/router/parse.js';

describe('parseInnerDevice', () => {
  test.each([
    ['wgpu', WgpuDevice.Default],
    ['wgpu:default', WgpuDevice.Default],
    ['wgpu:0', WgpuDevice.DiscreteGpu(0)],
    ['wgpu:3', WgpuDevice.DiscreteGpu(3)],
    ['wgpu:cpu', WgpuDevice.Cpu],
    ['wgpu:discrete:1', WgpuDevice.DiscreteGpu(1)],
    ['wgpu:integrated:0', WgpuDevice.IntegratedGpu(0)],
    ['wgpu:virtual:2', WgpuDevice.VirtualGpu(2)],
    ['wgpu:name:llvmpipe', WgpuDevice.byName('llvmpipe')],
  ])('wgpu: %s', (s, want) => {
    expect(parseInnerDevice('wgpu', s)).toEqual(want);
  });

  test('every WgpuDevice key parses back to its tag', () => {
    for (const d of [WgpuDevice.Default, WgpuDevice.Cpu, WgpuDevice.DiscreteGpu(2), WgpuDevice.IntegratedGpu(1), WgpuDevice.VirtualGpu(0), WgpuDevice.byName('nvidia')]) {
      expect(parseInnerDevice('wgpu', d.key)).toEqual(d);
    }
  });

  test('cpu spellings', () => {
    expect(parseInnerDevice('cpu', 'cpu')).toEqual(CpuDevice.Cpu);
    expect(parseInnerDevice('cpu', 'cpu:1')).toEqual(CpuDevice.named('cpu:1'));
  });

  test.each([
    ['wgpu', 'gpu'],
    ['wgpu', 'wgpu:'],
    ['wgpu', 'wgpu:-1'],
    ['wgpu', 'wgpu:discrete:x'],
    ['wgpu', 'cpu'],
    ['cpu', 'wgpu:0'],
    ['cpu', 'cpu:'],
    ['tpu', 'tpu:0'],
  ])('%s does not read %s', (family, s) => {
    expect(parseInnerDevice(family, s)).toBeUndefined();
  });
});
