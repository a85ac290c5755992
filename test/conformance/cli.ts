/**
 * Runs the conformance table without vitest:
 *
 *   tsx test/conformance/cli.ts cpu [--filter TEXT] [--verbose]    (the default kernels: wasm where available)
 *   tsx test/conformance/cli.ts cpu-pool       (2 workers, every splittable kernel on the pool)
 *   tsx test/conformance/cli.ts cpu-js | cpu-js-pool    (the JS reference kernels)
 *   node dist/test/conformance/cli.js wgpu
 *   node dist/test/conformance/cli.js fusion-wgpu    (through Fusion<Wgpu>: fused kernels, folded constants)
 *
 * Prints one line per failure and `N passed, M failed` last; exits 1 on any failure
 * (2 on a usage error or a backend that cannot be created).
 */
import type { Backend } from '../../src/backends/backend.js';
import { conformanceCases, runCase } from './suite.js';

interface Loaded {
  readonly backend: Backend;
  readonly close: () => Promise<void>;
}

/** Some backend classes expose `close()` or `destroy()`; call whichever exists. */
async function closeIfAble(b: Backend): Promise<void> {
  const c = b as Backend & { close?: () => Promise<void> | void; destroy?: () => Promise<void> | void };
  if (typeof c.close === 'function') await c.close();
  else if (typeof c.destroy === 'function') await c.destroy();
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** The module, or the reason it cannot be loaded (absent file, or a missing dependency of it). */
async function importModule(specifier: string): Promise<{ mod: Record<string, unknown> } | { missing: string }> {
  try {
    const mod: unknown = await import(specifier);
    return isRecord(mod) ? { mod } : { missing: `${specifier} is not a module namespace` };
  } catch (e) {
    const code = isRecord(e) ? e['code'] : undefined;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return { missing: errorText(e) };
    throw e;
  }
}

async function load(name: string): Promise<Loaded> {
  // Specifiers in variables: the CLI must type-check and build before every backend exists.
  if (name === 'cpu' || name === 'cpu-pool' || name === 'cpu-js' || name === 'cpu-js-pool') {
    const spec = '../../src/backends/cpu/backend.js';
    const r = await importModule(spec);
    if ('missing' in r) throw new Error(`the CPU backend is not available (${r.missing})`);
    const Cpu = r.mod['Cpu'];
    if (typeof Cpu !== 'function') throw new Error(`${spec} does not export class Cpu`);
    // cpu-pool: two workers and no inline threshold, so every splittable kernel runs on the pool.
    const pool = name.endsWith('-pool') ? { threads: 2, inlineThreshold: 0 } : {};
    const options = name.startsWith('cpu-js') ? { ...pool, kernels: 'js' } : pool;
    const backend = new (Cpu as new (o: { threads?: number; inlineThreshold?: number; kernels?: string }) => Backend)(options);
    return { backend, close: () => closeIfAble(backend) };
  }
  if (name === 'fusion-wgpu') {
    const inner = await load('wgpu');
    const r = await importModule('../../src/fusion/fusion.js');
    if ('missing' in r) throw new Error(`the Fusion decorator is not available (${r.missing})`);
    const Fusion = r.mod['Fusion'];
    if (typeof Fusion !== 'function') throw new Error('src/fusion/fusion.ts does not export class Fusion');
    const backend = new (Fusion as new (b: Backend) => Backend)(inner.backend);
    return { backend, close: () => closeIfAble(backend) };
  }
  if (name === 'wgpu') {
    const spec = '../../src/backends/wgpu/backend.js';
    const r = await importModule(spec);
    if ('missing' in r) throw new Error(`the WebGPU backend is not available yet: expected class Wgpu in src/backends/wgpu/backend.ts (${r.missing})`);
    const Wgpu = r.mod['Wgpu'];
    const create = typeof Wgpu === 'function' ? (Wgpu as unknown as Record<string, unknown>)['create'] : undefined;
    if (typeof create !== 'function') throw new Error(`${spec} does not export class Wgpu with a static create()`);
    const backend = (await (create as () => Promise<unknown>).call(Wgpu)) as Backend;
    return { backend, close: () => closeIfAble(backend) };
  }
  throw new Error(`unknown backend '${name}' (expected cpu, cpu-pool, cpu-js, cpu-js-pool, wgpu or fusion-wgpu)`);
}

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}

async function main(argv: readonly string[]): Promise<number> {
  let name: string | undefined;
  let filter: string | undefined;
  let verbose = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--filter') filter = argv[++i];
    else if (a === '--verbose' || a === '-v') verbose = true;
    else if (a === '--help' || a === '-h') {
      console.log('usage: cli.ts <cpu|cpu-pool|cpu-js|cpu-js-pool|wgpu|fusion-wgpu> [--filter TEXT] [--verbose]');
      return 0;
    } else if (name === undefined) name = a;
    else {
      console.error(`unexpected argument '${a}'`);
      return 2;
    }
  }
  if (!name) {
    console.error('usage: cli.ts <cpu|cpu-pool|cpu-js|cpu-js-pool|wgpu> [--filter TEXT] [--verbose]');
    return 2;
  }
  let loaded: Loaded;
  try {
    loaded = await load(name);
  } catch (e) {
    console.error(`cannot create backend '${name}': ${errorText(e)}`);
    return 2;
  }
  const cases = conformanceCases().filter((c) => filter === undefined || c.name.includes(filter));
  let passed = 0;
  let failed = 0;
  const t0 = performance.now();
  try {
    for (const c of cases) {
      const label = `[${name}] ${c.name}`;
      try {
        await runCase(c, loaded.backend);
        passed++;
        if (verbose) console.log(`ok   ${label}`);
      } catch (e) {
        failed++;
        console.log(`FAIL ${label}: ${errorText(e)}`);
      }
    }
  } finally {
    await loaded.close();
  }
  console.log(`(${((performance.now() - t0) / 1000).toFixed(1)} s, backend ${loaded.backend.name})`);
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  },
);
