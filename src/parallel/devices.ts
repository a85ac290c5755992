/**
 * The devices of a data-parallel run, as users write them: 'wgpu:0', 'wgpu:1' (the n-th GPU),
 * 'cpu' (a replica whose ops run on a pool of worker threads), 'cpu:worker' (a replica that
 * computes on one thread of its own). A trailing '*N' repeats an entry: 'cpu:worker*4'.
 */
import { ArgumentError } from '../errors.js';

export type ReplicaDevice =
  | { readonly kind: 'wgpu'; readonly key: string; readonly gpu: number }
  | { readonly kind: 'cpu'; readonly key: 'cpu' }
  | { readonly kind: 'cpu:worker'; readonly key: 'cpu:worker' };

const FORMS = "'wgpu' or 'wgpu:<n>' (the n-th GPU), 'cpu' (a pool of threads), 'cpu:worker' (one thread); '*<count>' repeats an entry";

function one(text: string): ReplicaDevice {
  const s = text.trim();
  if (s === 'cpu') return { kind: 'cpu', key: 'cpu' };
  if (s === 'cpu:worker') return { kind: 'cpu:worker', key: 'cpu:worker' };
  const m = /^wgpu(?::(\d+))?$/.exec(s);
  if (m) {
    const gpu = m[1] === undefined ? 0 : Number(m[1]);
    if (!Number.isSafeInteger(gpu)) throw new ArgumentError(`device '${s}': the GPU index is too large`, { op: 'DataParallel' });
    return { kind: 'wgpu', key: `wgpu:${gpu}`, gpu };
  }
  throw new ArgumentError(`unknown device '${s}'; devices are ${FORMS}`, { op: 'DataParallel', hint: "for example 'wgpu:0,cpu' or 'cpu:worker*4'" });
}

/** Parses a comma-separated list (or an array of entries) into one device per replica. */
export function parseDevices(list: string | readonly string[]): ReplicaDevice[] {
  // Untyped callers: anything but a string or an array is named, not iterated.
  if (typeof list !== 'string' && !Array.isArray(list)) {
    throw new ArgumentError(`devices must be a string or an array of strings, got ${list === null ? 'null' : typeof list}`, { op: 'DataParallel', hint: `e.g. 'wgpu:0,cpu' or ['cpu:worker*4']; ${FORMS}` });
  }
  const entries = typeof list === 'string' ? list.split(',') : [...list];
  const out: ReplicaDevice[] = [];
  for (const raw of entries) {
    if (typeof raw !== 'string') throw new ArgumentError(`devices must be strings, got ${typeof raw}`, { op: 'DataParallel' });
    const m = /^(.*)\*\s*(\d+)\s*$/.exec(raw);
    const count = m ? Number(m[2]) : 1;
    if (m && !(count >= 1 && count <= 1024)) throw new ArgumentError(`device '${raw.trim()}': the repeat count must be in [1, 1024]`, { op: 'DataParallel' });
    const d = one(m ? m[1]! : raw);
    for (let i = 0; i < count; i++) out.push(d);
  }
  if (out.length === 0) throw new ArgumentError('no devices given', { op: 'DataParallel', hint: `list at least one: ${FORMS}` });
  for (const key of ['cpu', ...out.filter((d) => d.kind === 'wgpu').map((d) => d.key)]) {
    if (out.filter((d) => d.key === key).length > 1) {
      const hint = key === 'cpu' ? "'cpu' already uses every core through its pool; for several CPU replicas use 'cpu:worker*<n>'" : 'each GPU takes one replica';
      throw new ArgumentError(`device '${key}' is listed more than once`, { op: 'DataParallel', devices: [key], hint });
    }
  }
  return out;
}

/** How a replica's device reads in messages: 'cpu:worker' replicas are told apart by their index. */
export function replicaName(index: number, device: ReplicaDevice): string {
  return `replica ${index} (${device.key})`;
}
