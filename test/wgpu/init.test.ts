import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { defaultAdapterSource } from '../../src/backends/wgpu/adapter.js';
import { WgpuDevice } from '../../src/devices/wgpu.js';
import { DeviceError, fromData, scheduler } from '../../src/index.js';
import { describeGpu } from './gpu.js';

describe('without an adapter', () => {
  const none = async (): Promise<GPUAdapter | null> => null;

  test('create() rejects with a DeviceError that says what to install', async () => {
    const err = await Wgpu.create({ requestAdapter: none }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceError);
    expect((err as DeviceError).message).toContain('mesa-vulkan-drivers');
    expect((err as DeviceError).message).toContain('bookworm-backports');
    expect((err as DeviceError).devices).toEqual(['wgpu:default']);
    // The hint sends users to what they have: the README (not a file the package does not ship).
    expect((err as DeviceError).hint).toContain('README');
    expect((err as DeviceError).message).not.toMatch(/\b(?!README)\w+\.md\b/);
  });

  test('a tensor can be created; reading it rejects (no hang), and later ops fail at once', async () => {
    const w = new Wgpu({ requestAdapter: none });
    const t = fromData(w, [1, 2, 3]);
    expect(t.shape).toEqual([3]);
    await expect(t.toData()).rejects.toBeInstanceOf(DeviceError);
    const later = t.add(1);
    await expect(later.toData()).rejects.toBeInstanceOf(DeviceError);
    await expect(fromData(w, [4]).toData()).rejects.toBeInstanceOf(DeviceError);
    await w.close();
  });

  test('an adapter factory that throws becomes a DeviceError too', async () => {
    const w = new Wgpu({ requestAdapter: () => Promise.reject(new Error('libvulkan.so.1: cannot open shared object file')) });
    const err = await fromData(w, [1]).toData().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceError);
    expect((err as DeviceError).message).toContain('libvulkan.so.1');
    await w.close();
  });

  test('a device kind with no matching adapter says which device', async () => {
    const w = new Wgpu({ requestAdapter: none, device: WgpuDevice.DiscreteGpu(7) });
    await expect(w.init()).rejects.toThrow(/wgpu:discrete:7/);
    await w.close();
  });
});

describeGpu('lazy initialisation', () => {
  const source = defaultAdapterSource();
  afterAll(() => source.release());

  test('nothing is requested at construction; tensors exist before the adapter does', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const w = new Wgpu({
      requestAdapter: async (d) => {
        calls++;
        await gate;
        return source.requestAdapter(d);
      },
    });
    expect(calls).toBe(0);
    const a = fromData(w, [1, 2, 3]);
    const b = a.mul(2).add(fromData(w, [10, 20, 30]));
    expect(b.shape).toEqual([3]);
    // The adapter is still pending: the ops wait in the scheduler.
    expect(scheduler.peek(b.id)).toBeUndefined();
    release();
    expect(Array.from((await b.toData()).values)).toEqual([12, 24, 36]);
    expect(calls).toBe(1);
    // Once the device is ready, encoding is synchronous: a new op's result exists at once.
    const c = b.sub(2);
    expect(scheduler.peek(c.id)).toBeDefined();
    expect(Array.from((await c.toData()).values)).toEqual([10, 22, 34]);
    await w.close();
  });

  test('the adapter can be picked by kind and by name', async () => {
    const w = new Wgpu({ device: WgpuDevice.Cpu });
    const info = await w.adapterInfo();
    // This suite runs on lavapipe in CI; on a GPU machine WgpuDevice.Cpu may be absent.
    expect(typeof info.description).toBe('string');
    const named = WgpuDevice.byName(info.device || info.description);
    await w.init(named);
    const t = fromData(w, [5, 6], { device: named });
    expect(t.device.key).toBe(named.key);
    expect(Array.from((await t.neg().toData()).values)).toEqual([-5, -6]);
    await w.close();
  });
});

describeGpu('closing and opening again', () => {
  test('a read asked for before close() resolves with its values; ops after close() fail with a DeviceError', async () => {
    const gpu = new Wgpu();
    const x = fromData(gpu, [0, 1, 2]).exp();
    const read = x.toData();
    await gpu.close();
    const got = Array.from((await read).values);
    [1, Math.E, Math.E ** 2].forEach((v, i) => expect(got[i]!).toBeCloseTo(v, 5));
    await expect(fromData(gpu, [1]).exp().toData()).rejects.toThrow(DeviceError);
  });

  test('a backend closed before its first op stays closed: later ops fail, no device opens', async () => {
    const gpu = new Wgpu();
    await gpu.close();
    await expect(fromData(gpu, [1, 2]).exp().toData()).rejects.toThrow(/the WebGPU device .* was closed/);
    expect(gpu.exec(gpu.defaultDevice()).context).toBeUndefined();
  });

  test('a backend closed, the next opened, the garbage collected while it works: the process lives and exits by itself', async () => {
    // In a process of its own, with the collector at hand: before the Dawn instances were kept
    // for the process, this died natively (segfault or std::system_error) at the first gc().
    const script = fileURLToPath(new URL('../fixtures/wgpu-reopen-gc.ts', import.meta.url));
    const result = await new Promise<{ code: number | null; signal: string | null; out: string }>((resolve) => {
      const child = execFile(process.execPath, ['--expose-gc', '--import', 'tsx', script], { timeout: 120_000 }, (_err, stdout) => resolve({ code: child.exitCode, signal: child.signalCode, out: stdout }));
    });
    expect(result.signal).toBeNull();
    expect(result.code).toBe(0);
    expect(result.out.trim()).toBe('ok');
  }, 150_000);
});
