/**
 * Where each GPU replica runs and how it finds its GPU: on a machine with one GPU, the calling
 * thread (or a worker thread) opening Dawn's default adapter; with several, a process per GPU whose environment
 * selects it through Mesa's device-select layer before its Vulkan instance exists (a thread cannot:
 * the environment belongs to the process, and Dawn cannot tell identical GPUs apart by name).
 */
import { DeviceError } from '../errors.js';
import type { ReplicaDevice } from './devices.js';
import { describeGpu, gpuAt, selectionEnv, type GpuInventory } from './gpus.js';
import type { GpuTarget } from './protocol.js';

export type GpuHost = 'auto' | 'main' | 'thread' | 'process';

export interface Placement {
  readonly host: 'main' | 'thread' | 'process';
  readonly env: Readonly<Record<string, string>>;
  readonly target: GpuTarget;
}

/** Where each GPU replica runs and how it finds its GPU (undefined for CPU replicas). */
export function placeGpus(devices: readonly ReplicaDevice[], gpuHost: GpuHost, inventory: GpuInventory): Array<Placement | undefined> {
  return devices.map((d) => {
    if (d.kind !== 'wgpu') return undefined;
    const gpu = gpuAt(inventory, d.gpu);
    // One GPU: its replica runs on the calling thread (no thread hop, no copy of its shard).
    const host = gpuHost === 'auto' ? (inventory.gpus.length === 1 ? 'main' : 'process') : gpuHost;
    const target = dawnTarget(inventory, gpu);
    if (inventory.gpus.length === 1) return { host, env: {}, target };
    // Several GPUs: the device-select layer pins a process to any of them; without it (or in a
    // thread, whose Vulkan instance sees the process's environment) only distinct names can.
    if (host === 'process' && inventory.source === 'device-select') return { host, env: selectionEnv(inventory, gpu), target };
    if (target.dawnName) return { host, env: {}, target };
    if (host === 'process') selectionEnv(inventory, gpu); // throws: the layer is missing
    throw new DeviceError(`${d.key} (${describeGpu(gpu)}) cannot be told apart from an identical GPU inside one process`, { op: 'DataParallel', devices: [d.key], hint: "use gpuHost: 'process' (the default on machines with several GPUs)" });
  });
}

/** The GPU's name, and Dawn's name for it when that name is unique on the machine. */
function dawnTarget(inventory: GpuInventory, gpu: { name: string }): GpuTarget {
  const unique = inventory.gpus.filter((g) => g.name === gpu.name).length === 1;
  return unique && inventory.gpus.length > 1 ? { name: gpu.name, dawnName: gpu.name } : { name: gpu.name };
}

