/**
 * A device is a plain, serialisable tag: the backend it belongs to and a key unique in the
 * process ('cpu', 'wgpu:0', ...). Tags compare by key, so they survive structuredClone and JSON.
 */
export interface Device {
  readonly backend: string;
  readonly key: string;
}

export function sameDevice(a: Device, b: Device): boolean {
  return a.key === b.key;
}

export function deviceName(d: Device): string {
  return d.key;
}
