/**
 * Where cost models persist: one JSON file per machine and set of adapters, in the user's cache
 * directory (`$SWITCHYARD_CACHE_DIR`, else `$XDG_CACHE_HOME/switchyard`, `~/Library/Caches/switchyard`
 * on macOS, `%LOCALAPPDATA%\switchyard\cache` on Windows, `~/.cache/switchyard`), under
 * `placement/`. Node only: elsewhere nothing is read or written. Node modules are imported
 * through `importNodeModule`, so browser bundles never see them.
 */
import { importNodeModule, isNode } from '../platform.js';
import type { SavedModels } from './cost-model.js';

type Os = typeof import('node:os');
type Path = typeof import('node:path');
type Fs = typeof import('node:fs/promises');

export interface MachineId {
  readonly host: string;
  readonly cpu: string;
  readonly cores: number;
  readonly platform: string;
  readonly arch: string;
}

export interface SavedFile {
  readonly format: 'switchyard-placement';
  readonly version: 1;
  readonly machine: MachineId;
  /** The devices and adapters the models were measured on. */
  readonly adapters: readonly string[];
  readonly savedAt: string;
  readonly models: SavedModels;
}

export async function machineId(): Promise<MachineId | undefined> {
  if (!isNode()) return undefined;
  const os = await importNodeModule<Os>('node:os');
  const cpus = os.cpus();
  return { host: os.hostname(), cpu: cpus[0]?.model.trim() ?? 'unknown', cores: cpus.length, platform: os.platform(), arch: os.arch() };
}

export async function cacheDir(): Promise<string | undefined> {
  if (!isNode()) return undefined;
  const os = await importNodeModule<Os>('node:os');
  const path = await importNodeModule<Path>('node:path');
  const env = process.env;
  if (env['SWITCHYARD_CACHE_DIR']) return env['SWITCHYARD_CACHE_DIR'];
  if (env['XDG_CACHE_HOME']) return path.join(env['XDG_CACHE_HOME'], 'switchyard');
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches', 'switchyard');
  if (process.platform === 'win32' && env['LOCALAPPDATA']) return path.join(env['LOCALAPPDATA'], 'switchyard', 'cache');
  return path.join(os.homedir(), '.cache', 'switchyard');
}

/** FNV-1a, 32 bits, as 8 hex digits: a short stable name for an identity string. */
export function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** The file for a machine and its adapters: readable host name plus a hash of everything. */
export async function modelPath(dir: string, machine: MachineId, adapters: readonly string[]): Promise<string> {
  const path = await importNodeModule<Path>('node:path');
  const slug = machine.host.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40) || 'machine';
  return path.join(dir, 'placement', `${slug}-${shortHash(JSON.stringify([machine, adapters]))}.json`);
}

function isSavedFile(v: unknown): v is SavedFile {
  if (typeof v !== 'object' || v === null) return false;
  const f = v as Partial<SavedFile>;
  return f.format === 'switchyard-placement' && f.version === 1 && typeof f.models === 'object' && f.models !== null && typeof f.models.ops === 'object' && typeof f.models.transfers === 'object';
}

/** The saved file, or undefined when there is none or it is not ours (a corrupt file is ignored, not fatal). */
export async function readModels(file: string): Promise<SavedFile | undefined> {
  const fs = await importNodeModule<Fs>('node:fs/promises');
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const v: unknown = JSON.parse(text);
    return isSavedFile(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Writes atomically (a temporary file renamed over the old one), creating the folder. */
export async function writeModels(file: string, data: SavedFile): Promise<void> {
  const fs = await importNodeModule<Fs>('node:fs/promises');
  const path = await importNodeModule<Path>('node:path');
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(data));
  await fs.rename(tmp, file);
}

export async function removeModels(file: string): Promise<void> {
  const fs = await importNodeModule<Fs>('node:fs/promises');
  await fs.rm(file, { force: true });
}
