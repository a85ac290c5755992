/**
 * Finding the adapter behind a `WgpuDevice` tag. Standard WebGPU only: `navigator.gpu` where it
 * exists, else (Node) Dawn from the `webgpu` package, imported dynamically so that a browser
 * bundle never contains it. WebGPU cannot list adapters, so kinds are found by asking with each
 * power preference and the fallback flag (and, under Dawn, by the adapter names Dawn reports).
 */
import type { WgpuDevice, WgpuDeviceKind } from '../../devices/wgpu.js';
import { importNodeModule, isNode } from '../../platform.js';

/** The injection point: tests pass one that returns null to simulate a machine without an adapter. */
export type RequestAdapter = (device: WgpuDevice) => Promise<GPUAdapter | null>;

export interface AdapterSource {
  readonly requestAdapter: RequestAdapter;
  /** Says this source is done with; the Dawn instances themselves stay for the process (see SharedInstances). */
  release(): void;
}

export type AdapterClass = Exclude<WgpuDeviceKind, 'default' | 'name'> | 'unknown';

/** What the hint of a missing adapter says to do. */
export const INSTALL_HINT =
  'install a Vulkan driver for your GPU; on a machine without one, the software adapter lavapipe: ' +
  'apt-get install -y -t bookworm-backports mesa-vulkan-drivers (Debian bookworm-backports; see the README, section WebGPU), ' +
  'or run on the Cpu backend';

/** Sorts an adapter into the tag kinds from what `GPUAdapterInfo` tells (there is no type field). */
export function classifyAdapter(info: Pick<GPUAdapterInfo, 'vendor' | 'architecture' | 'device' | 'description'> & { isFallbackAdapter?: boolean }): AdapterClass {
  const text = `${info.vendor} ${info.architecture} ${info.device} ${info.description}`.toLowerCase();
  if (info.isFallbackAdapter === true || /software|llvmpipe|lavapipe|swiftshader|\bwarp\b|microsoft basic render/.test(text)) return 'cpu';
  if (/virtio|virgl|venus|vmware|svga|parallels|gfxstream/.test(text)) return 'virtual';
  if (/nvidia|\bamd\b|\bati\b|radeon/.test(text)) return 'discrete';
  if (/intel|apple|qualcomm|adreno|\barm\b|mali|powervr|imagination|broadcom|samsung/.test(text)) return 'integrated';
  return 'unknown';
}

function adapterText(a: GPUAdapter): string {
  const i = a.info;
  return `${i.vendor} ${i.architecture} ${i.device} ${i.description}`.toLowerCase();
}

/**
 * Dawn toggles for every instance: experimental features (subgroup matrices: the tensor-core
 * matmul) are offered only with `allow_unsafe_apis`, and NVIDIA's Vulkan driver offers
 * `shader-f16` only with `vulkan_enable_f16_on_nvidia`. Features are still requested only where
 * the adapter lists them (features.ts). Timestamps keep their full resolution (browsers quantize
 * them against timing attacks; kernel profiling and the autotuner need microseconds).
 */
const DAWN_FLAGS = ['enable-dawn-features=allow_unsafe_apis,vulkan_enable_f16_on_nvidia', 'disable-dawn-features=timestamp_quantization'];

interface DawnModule {
  create(options: string[]): GPU;
}

function loadDawn(): Promise<DawnModule> {
  return importNodeModule<DawnModule>('webgpu');
}

function browserGpu(): GPU | undefined {
  const nav = (globalThis as { navigator?: { gpu?: GPU } }).navigator;
  return nav?.gpu;
}

/** Adapter names as Dawn lists them when asked for an adapter it does not have. */
async function dawnAdapterNames(dawn: DawnModule): Promise<string[]> {
  try {
    const lister = dawn.create(['adapter=\u0001switchyard-list-adapters']);
    held.push(lister);
    await lister.requestAdapter();
    return [];
  } catch (e) {
    const text = e instanceof Error ? e.message : String(e);
    return [...text.matchAll(/name: '([^']*)'/g)].map((m) => m[1]!).filter((n) => n.length > 0);
  }
}

/**
 * Dawn instances shared by every open Wgpu backend of the process. Dawn enumerates adapters,
 * and on some Vulkan drivers (lavapipe, some NVIDIA releases) prints two "artificially reduced"
 * limit notices from native code, once per instance: sharing keeps that to once per process.
 * Kept for the life of the process, never dropped: when the garbage collector freed a released
 * instance while another was in use, the process died natively (a segfault, std::system_error
 * "Invalid argument", or a mutex assertion in lavapipe), as after closing one Wgpu and opening
 * the next. A held instance whose devices are destroyed does not keep Node alive.
 */
interface SharedInstances {
  base: Promise<GPU | undefined> | undefined;
  /** Instances per adapter name, made once; adapters are requested afresh each time (a device consumes its adapter). */
  named: Promise<GPU[]> | undefined;
}
let shared: SharedInstances | undefined;
/** Every other instance made (the one that lists adapter names), held for the same reason. */
const held: GPU[] = [];

/** The default source: navigator.gpu in browsers, Dawn in Node. */
export function defaultAdapterSource(): AdapterSource {
  const instances = (shared ??= { base: undefined, named: undefined });

  const baseGpu = (): Promise<GPU | undefined> =>
    (instances.base ??= (async () => {
      const g = browserGpu();
      if (g) return g;
      if (!isNode()) return undefined;
      return (await loadDawn()).create(DAWN_FLAGS);
    })());

  const namedGpus = (): Promise<GPU[]> =>
    (instances.named ??= (async () => {
      if (browserGpu() || !isNode()) return [];
      const dawn = await loadDawn();
      // With one adapter the base instance already reaches it: no second instance (and notice).
      const names = await dawnAdapterNames(dawn);
      return names.length > 1 ? names.map((name) => dawn.create([`adapter=${name}`, ...DAWN_FLAGS])) : [];
    })());

  const listAll = async (): Promise<GPUAdapter[]> => {
    const found: GPUAdapter[] = [];
    const seen = new Set<string>();
    const add = (a: GPUAdapter | null): void => {
      if (!a) return;
      const id = adapterText(a);
      if (seen.has(id)) return;
      seen.add(id);
      found.push(a);
    };
    for (const gpu of await namedGpus()) add(await gpu.requestAdapter().catch(() => null));
    const gpu = await baseGpu();
    if (gpu) {
      for (const o of [{ powerPreference: 'high-performance' }, { powerPreference: 'low-power' }, { forceFallbackAdapter: true }] as const) {
        add(await gpu.requestAdapter(o).catch(() => null));
      }
    }
    return found;
  };

  const requestAdapter: RequestAdapter = async (device) => {
    switch (device.kind) {
      case 'default': {
        const gpu = await baseGpu();
        return gpu ? gpu.requestAdapter({ powerPreference: 'high-performance' }) : null;
      }
      case 'cpu': {
        const all = await listAll();
        return all.find((a) => classifyAdapter(a.info) === 'cpu') ?? null;
      }
      case 'name': {
        const needle = (device.name ?? '').toLowerCase();
        return (await listAll()).find((a) => adapterText(a).includes(needle)) ?? null;
      }
      default: {
        const kind = device.kind;
        return (await listAll()).filter((a) => classifyAdapter(a.info) === kind)[device.index] ?? null;
      }
    }
  };

  return {
    requestAdapter,
    release() {
      // Nothing to drop: the instances stay for the process (see SharedInstances).
    },
  };
}
