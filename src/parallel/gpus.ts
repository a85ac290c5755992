/**
 * The GPUs of this machine, and how a replica opens the n-th one. WebGPU cannot list adapters and
 * Dawn's `adapter=` toggle takes the first adapter whose name matches, so two identical GPUs
 * cannot be told apart from inside one Dawn instance. Vulkan can: Mesa's device-select layer
 * (mesa-vulkan-drivers >= 25 ships it) lists every physical device with its PCI address, and a
 * process started with DRI_PRIME=pci-DDDD_BB_DD_F and MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE=1
 * sees exactly that device. So `wgpu:<n>` is the n-th GPU in PCI order, listed once per process
 * by a probe in a child process (the layer prints its list on stderr), and a replica pinned to a
 * GPU is a child process whose environment selects it before its Vulkan instance exists.
 */
import { DeviceError } from '../errors.js';
import { importNodeModule } from '../platform.js';

export type VulkanDeviceType = 'discrete GPU' | 'integrated GPU' | 'virtual GPU' | 'CPU' | 'other';

export interface MachineGpu {
  /** Its n in 'wgpu:<n>'. */
  readonly index: number;
  /** The Vulkan device name, e.g. 'NVIDIA H200'. */
  readonly name: string;
  readonly type: VulkanDeviceType;
  readonly vendorId: number;
  readonly deviceId: number;
  /** PCI address 'DDDD:BB:DD.F', when the driver reports it. */
  readonly pci?: string;
}

export interface GpuInventory {
  readonly gpus: readonly MachineGpu[];
  /** 'device-select': listed by Mesa's layer (any of them can be pinned); 'dawn': Dawn's adapter names only. */
  readonly source: 'device-select' | 'dawn' | 'none';
}

const TYPES: readonly VulkanDeviceType[] = ['discrete GPU', 'integrated GPU', 'virtual GPU', 'CPU', 'other'];
const LINE = /^\s*GPU (\d+): ([0-9a-f]+):([0-9a-f]+) "(.*)" (discrete GPU|integrated GPU|virtual GPU|CPU|other)(?: ([0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]))?\s*$/i;

/** The first "selectable devices:" list that MESA_VK_DEVICE_SELECT_DEBUG=1 prints, in the layer's order. */
export function parseDeviceSelectList(text: string): Array<Omit<MachineGpu, 'index'>> {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim() === 'selectable devices:');
  if (start < 0) return [];
  const out: Array<Omit<MachineGpu, 'index'>> = [];
  for (const line of lines.slice(start + 1)) {
    const m = LINE.exec(line);
    if (!m) break;
    const type = TYPES.find((t) => t.toLowerCase() === m[5]!.toLowerCase()) ?? 'other';
    const gpu = { name: m[4]!, type, vendorId: parseInt(m[2]!, 16), deviceId: parseInt(m[3]!, 16) };
    out.push(m[6] ? { ...gpu, pci: m[6].toLowerCase() } : gpu);
  }
  return out;
}

/** Numbers the GPUs: hardware first, in PCI order; software adapters (lavapipe) only on a machine with no GPU. */
export function orderGpus(list: ReadonlyArray<Omit<MachineGpu, 'index'>>): MachineGpu[] {
  const hardware = list.filter((g) => g.type !== 'CPU');
  const chosen = hardware.length > 0 ? hardware : list.filter((g) => g.type === 'CPU');
  const key = (g: Omit<MachineGpu, 'index'>): string => g.pci ?? `~${g.name}`;
  return [...chosen].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)).map((g, index) => ({ ...g, index }));
}

/** A GPU's line in messages: 'wgpu:0 = NVIDIA H200 (discrete GPU, PCI 0000:19:00.0)'. */
export function describeGpu(g: MachineGpu): string {
  const type = g.type === 'CPU' ? 'software adapter' : g.type;
  return `wgpu:${g.index} = ${g.name} (${type}${g.pci ? `, PCI ${g.pci}` : ''})`;
}

/** The n-th GPU, or a DeviceError that names the GPUs this machine has. */
export function gpuAt(inventory: GpuInventory, n: number): MachineGpu {
  const g = inventory.gpus[n];
  if (g) return g;
  const count = inventory.gpus.length;
  const software = inventory.gpus.every((x) => x.type === 'CPU');
  const have =
    count === 0
      ? 'this machine has no WebGPU adapter'
      : `this machine has ${count} ${software ? `software adapter${count === 1 ? '' : 's'} and no GPU` : `GPU${count === 1 ? '' : 's'}`}: ${inventory.gpus.map(describeGpu).join('; ')}`;
  throw new DeviceError(`wgpu:${n} does not exist: ${have}`, {
    op: 'DataParallel',
    devices: [`wgpu:${n}`],
    hint: inventory.gpus.length === 0 ? 'install a Vulkan driver (see the README, section WebGPU), or use cpu devices' : `use one of wgpu:0..wgpu:${inventory.gpus.length - 1}`,
  });
}

/**
 * The environment that makes a process see only `gpu`: DRI_PRIME=pci-... when the driver reports
 * the PCI address, else MESA_VK_DEVICE_SELECT=vendor:device (which must then be unique).
 */
export function selectionEnv(inventory: GpuInventory, gpu: MachineGpu): Record<string, string> {
  if (inventory.source !== 'device-select') {
    throw new DeviceError(`cannot pin wgpu:${gpu.index} (${gpu.name}): Mesa's Vulkan device-select layer is not installed`, {
      op: 'DataParallel',
      devices: [`wgpu:${gpu.index}`],
      hint: "install mesa-vulkan-drivers >= 25 (it ships the layer; see the README's data-parallel section)",
    });
  }
  if (gpu.pci) {
    // 'DDDD:BB:DD.F' -> 'pci-DDDD_BB_DD_F', the tag the layer matches DRI_PRIME against.
    return { DRI_PRIME: `pci-${gpu.pci.replace(/[:.]/g, '_')}`, MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' };
  }
  const twins = inventory.gpus.filter((g) => g.vendorId === gpu.vendorId && g.deviceId === gpu.deviceId);
  if (twins.length > 1) {
    throw new DeviceError(`cannot pin wgpu:${gpu.index} (${gpu.name}): its driver reports no PCI address and ${twins.length} devices share its id ${gpu.vendorId.toString(16)}:${gpu.deviceId.toString(16)}`, {
      op: 'DataParallel',
      devices: [`wgpu:${gpu.index}`],
      hint: 'use a driver with VK_EXT_pci_bus_info',
    });
  }
  return { MESA_VK_DEVICE_SELECT: `${gpu.vendorId.toString(16)}:${gpu.deviceId.toString(16)}`, MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE: '1' };
}

/** A copy of `env` without the variables that select Vulkan devices. */
export function withoutSelection(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const out = { ...env };
  for (const k of ['DRI_PRIME', 'MESA_VK_DEVICE_SELECT', 'MESA_VK_DEVICE_SELECT_FORCE_DEFAULT_DEVICE', 'MESA_VK_DEVICE_SELECT_DEBUG']) delete out[k];
  return out;
}

// The probe: a child process opens Dawn once with the layer's debug list on, and also asks Dawn
// for an adapter it cannot have, whose error lists Dawn's adapter names (without the layer).
const PROBE = `
const { create } = await import(process.argv[1]);
const out = { names: [] };
try { await create(['adapter=\\u0001switchyard-list-adapters']).requestAdapter(); }
catch (e) { out.names = [...String(e && e.message).matchAll(/name: '([^']*)'/g)].map((m) => m[1]); }
process.stdout.write(JSON.stringify(out));
process.exit(0);
`;

let cached: Promise<GpuInventory> | undefined;

/** The machine's GPUs (probed once per process, in a child process: about a second). */
export function gpuInventory(): Promise<GpuInventory> {
  return (cached ??= probe());
}

async function probe(): Promise<GpuInventory> {
  const [{ execFile }, { createRequire }, { pathToFileURL }] = await Promise.all([
    importNodeModule<typeof import('node:child_process')>('node:child_process'),
    importNodeModule<typeof import('node:module')>('node:module'),
    importNodeModule<typeof import('node:url')>('node:url'),
  ]);
  let dawn: string;
  try {
    dawn = pathToFileURL(createRequire(import.meta.url).resolve('webgpu')).href;
  } catch {
    return { gpus: [], source: 'none' };
  }
  const env = { ...withoutSelection(process.env), MESA_VK_DEVICE_SELECT_DEBUG: '1' };
  const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, ['--input-type=module', '-e', PROBE, dawn], { env, timeout: 120_000, maxBuffer: 1 << 20 }, (_err, out, err) => resolve({ stdout: String(out), stderr: String(err) }));
  });
  const listed = parseDeviceSelectList(stderr);
  if (listed.length > 0) return { gpus: orderGpus(listed), source: 'device-select' };
  const names = dawnNames(stdout);
  if (names.length === 0) return { gpus: [], source: 'none' };
  const software = /llvmpipe|lavapipe|swiftshader|software/i;
  const list = names.map((name) => {
    const type: VulkanDeviceType = software.test(name) ? 'CPU' : 'other';
    return { name, type, vendorId: 0, deviceId: 0 };
  });
  return { gpus: orderGpus(list), source: 'dawn' };
}

function dawnNames(stdout: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    return [];
  }
  const names = parsed !== null && typeof parsed === 'object' && 'names' in parsed ? parsed.names : undefined;
  return Array.isArray(names) ? names.filter((n): n is string => typeof n === 'string' && n.length > 0) : [];
}
