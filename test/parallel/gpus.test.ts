/**
 * Which GPU 'wgpu:<n>' means: the device-select layer's list parsed and numbered in PCI order,
 * the environment that pins a process to one GPU, where GPU replicas run, and the DeviceError for
 * a GPU that does not exist (on this machine too).
 */
import { describe, expect, test } from 'vitest';
import { DeviceError } from '../../src/errors.js';
import { parseDevices } from '../../src/parallel/devices.js';
import { gpuAt, gpuInventory, orderGpus, parseDeviceSelectList, selectionEnv, type GpuInventory } from '../../src/parallel/gpus.js';
import { placeGpus } from '../../src/parallel/placement.js';
import { sameGpu } from '../../src/parallel/replica.js';
import { DataParallel } from '../../src/parallel/data-parallel.js';
import { hasAdapter } from '../wgpu/gpu.js';

// What MESA_VK_DEVICE_SELECT_DEBUG=1 prints on a machine with two identical GPUs and lavapipe
// (the layer prints its list on every enumeration).
const TWO_H200 = `Warning: something else
selectable devices:
  GPU 0: 10de:2335 "NVIDIA H200" discrete GPU 0000:9a:00.0
  GPU 1: 10de:2335 "NVIDIA H200" discrete GPU 0000:19:00.0
  GPU 2: 10005:0 "llvmpipe (LLVM 15.0.6, 256 bits)" CPU
selectable devices:
  GPU 0: 10de:2335 "NVIDIA H200" discrete GPU 0000:9a:00.0
`;

// This kind of machine: lavapipe only.
const LAVAPIPE = `selectable devices:
  GPU 0: 10005:0 "llvmpipe (LLVM 15.0.6, 256 bits)" CPU
`;

const twoH200: GpuInventory = { gpus: orderGpus(parseDeviceSelectList(TWO_H200)), source: 'device-select' };

describe('numbering GPUs', () => {
  test('the layer\'s first list, hardware only, in PCI order', () => {
    const listed = parseDeviceSelectList(TWO_H200);
    expect(listed).toHaveLength(3);
    expect(listed[2]).toEqual({ name: 'llvmpipe (LLVM 15.0.6, 256 bits)', type: 'CPU', vendorId: 0x10005, deviceId: 0 });
    expect(twoH200.gpus.map((g) => [g.index, g.name, g.pci])).toEqual([
      [0, 'NVIDIA H200', '0000:19:00.0'],
      [1, 'NVIDIA H200', '0000:9a:00.0'],
    ]);
  });

  test('a machine with no GPU numbers its software adapter', () => {
    const inv: GpuInventory = { gpus: orderGpus(parseDeviceSelectList(LAVAPIPE)), source: 'device-select' };
    expect(inv.gpus.map((g) => g.name)).toEqual(['llvmpipe (LLVM 15.0.6, 256 bits)']);
    expect(selectionEnv(inv, inv.gpus[0]!)).toEqual({ MESA_VK_DEVICE_SELECT: '10005:0', MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' });
  });

  test('no list: nothing parsed', () => {
    expect(parseDeviceSelectList('Warning: maxDynamicUniformBuffers...\n')).toEqual([]);
  });
});

describe('pinning a GPU', () => {
  test('wgpu:1 is the second GPU by PCI address, selected before the Vulkan instance exists', () => {
    expect(selectionEnv(twoH200, gpuAt(twoH200, 1))).toEqual({ DRI_PRIME: 'pci-0000_9a_00_0', MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' });
    expect(selectionEnv(twoH200, gpuAt(twoH200, 0))).toEqual({ DRI_PRIME: 'pci-0000_19_00_0', MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' });
  });

  test('several GPUs: one pinned process each; one GPU: the calling thread', () => {
    const places = placeGpus(parseDevices('wgpu:0,wgpu:1,cpu'), 'auto', twoH200);
    expect(places.map((p) => p?.host)).toEqual(['process', 'process', undefined]);
    expect(places[1]!.env).toEqual({ DRI_PRIME: 'pci-0000_9a_00_0', MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' });
    const one: GpuInventory = { gpus: [twoH200.gpus[0]!], source: 'device-select' };
    expect(placeGpus(parseDevices('wgpu,cpu'), 'auto', one).map((p) => p?.host)).toEqual(['main', undefined]);
  });

  test('identical GPUs in threads, or without the layer, are refused rather than guessed', () => {
    expect(() => placeGpus(parseDevices('wgpu:1'), 'thread', twoH200)).toThrow(/wgpu:1 \(wgpu:1 = NVIDIA H200 .*\) cannot be told apart from an identical GPU inside one process/);
    const dawnOnly: GpuInventory = { gpus: twoH200.gpus, source: 'dawn' };
    expect(() => placeGpus(parseDevices('wgpu:1'), 'process', dawnOnly)).toThrow(/device-select layer is not installed/);
  });

  test('a GPU that does not exist is a DeviceError naming the GPUs there are', () => {
    let err: unknown;
    try {
      gpuAt(twoH200, 2);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(DeviceError);
    expect(String(err)).toMatch(/wgpu:2 does not exist: this machine has 2 GPUs: wgpu:0 = NVIDIA H200 \(discrete GPU, PCI 0000:19:00.0\); wgpu:1 = NVIDIA H200 \(discrete GPU, PCI 0000:9a:00.0\)/);
    expect(() => gpuAt({ gpus: [], source: 'none' }, 0)).toThrow(/wgpu:0 does not exist: this machine has no WebGPU adapter/);
  });
});

describe('checking the adapter Dawn opened', () => {
  test('the listed name against Dawn\'s adapter info', () => {
    const lavapipe = { vendor: 'mesa', device: 'llvmpipe-llvm-15-0-6-256-bits-', description: 'llvmpipe: Mesa 25.0.7-2~bpo12+1 (LLVM 15.0.6) 0.0.1' };
    expect(sameGpu('llvmpipe (LLVM 15.0.6, 256 bits)', lavapipe)).toBe(true);
    expect(sameGpu('NVIDIA H200', lavapipe)).toBe(false); // a silent fallback to the software adapter
    expect(sameGpu('NVIDIA H200', { vendor: 'nvidia', device: 'nvidia-h200', description: 'NVIDIA: 580.159.04 580.159.4.0' })).toBe(true);
    expect(sameGpu('NVIDIA H200', { vendor: 'nvidia', device: '', description: 'NVIDIA: 580.159.04' })).toBe(true);
    expect(sameGpu('NVIDIA H200', { vendor: 'amd', device: '', description: 'AMD Radeon' })).toBe(false);
  });
});

describe.runIf(hasAdapter || process.env['CI'] === 'true')('this machine (one adapter)', () => {
  test('the inventory lists exactly one adapter, through the device-select layer', async () => {
    const inv = await gpuInventory();
    expect(inv.gpus).toHaveLength(1);
    expect(inv.source).toBe('device-select');
  });

  test("'wgpu:1' is a DeviceError that names the GPU there is, and nothing starts", async () => {
    const err: unknown = await DataParallel.create({ task: new URL('./fixtures/mlp-task.ts', import.meta.url), module: { params: {} }, devices: 'cpu:worker,wgpu:1' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceError);
    expect(String(err)).toMatch(/DataParallel: wgpu:1 does not exist: this machine has 1 (GPU|software adapter and no GPU): wgpu:0 = /);
  });
});
