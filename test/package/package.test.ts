/**
 * The published package as a user gets it: `npm pack` (which builds lib/ through `prepare`),
 * installed into an empty folder outside the repository, then used from plain ESM JavaScript,
 * from CommonJS, from TypeScript with `skipLibCheck: false` (Node and browser settings), and
 * bundled by vite for a browser, which must print no Node-module warning.
 *
 * Installing: with CI=true (the registry is reachable) `npm install <tarball>`; otherwise,
 * offline, the tarball is unpacked as npm would and each dependency its package.json declares
 * is linked from this repository's node_modules (an undeclared one stays missing).
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build, createLogger } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const tsc = join(repo, 'node_modules/typescript/bin/tsc');
const useNpm = (process.env['SWITCHYARD_PACKAGE_INSTALL'] ?? (process.env['CI'] === 'true' ? 'npm' : 'link')) === 'npm';

/** [[1, 2, 3], [4, 5, 6]] x [[7, 8], [9, 10], [11, 12]] by a float64 loop. */
function reference(): number[][] {
  const a = [[1, 2, 3], [4, 5, 6]];
  const b = [[7, 8], [9, 10], [11, 12]];
  return a.map((row) => [0, 1].map((j) => row.reduce((s, v, k) => s + v * b[k]![j]!, 0)));
}

const MATMUL = `
const cpu = new Cpu({ threads: 0 });
const a = fromData(cpu, [[1, 2, 3], [4, 5, 6]]);
const b = fromData(cpu, [[7, 8], [9, 10], [11, 12]]);
const c = a.matmul(b);
console.log(JSON.stringify(await c.toArray()));
`;

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  'esm.mjs': `import { Cpu, fromData } from 'switchyard';
import { inspect } from 'node:util';
${MATMUL}
console.log(inspect(c).split('\\n')[0]);
await cpu.close();
// The worker pool from the installed package (its worker file and piscina): every op on the pool.
const pool = new Cpu({ threads: 2, inlineThreshold: 0 });
const p = fromData(pool, [[1, 2, 3], [4, 5, 6]]).matmul(fromData(pool, [[7, 8], [9, 10], [11, 12]]));
console.log(JSON.stringify(await p.toArray()));
await pool.close();
`,
  'cjs.cjs': `let message = 'no error';
try {
  require('switchyard');
} catch (e) {
  message = e.message;
}
console.log(JSON.stringify(message));
(async () => {
  const { Cpu, fromData } = await import('switchyard');
  ${MATMUL}
})().catch(() => process.exit(3));
`,
  'main.ts': `import { Cpu, fromData, ShapeError, type Tensor } from 'switchyard';
const cpu = new Cpu({ threads: 0 });
const a: Tensor<Cpu, 'float'> = fromData(cpu, [[1, 2, 3], [4, 5, 6]]);
const b = fromData(cpu, [[7, 8], [9, 10], [11, 12]]);
const ints = fromData(cpu, new Int32Array([1, 2]));
export const typeOnly = (): void => {
  // @ts-expect-error exp is an op on float tensors: the published types say so
  ints.exp();
};
try {
  a.matmul(a);
} catch (e) {
  if (!(e instanceof ShapeError)) throw e;
}
console.log(JSON.stringify(await a.matmul(b).toArray()));
await cpu.close();
`,
  'tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', lib: ['ES2022'], types: ['node'], typeRoots: [join(repo, 'node_modules/@types')], strict: true, skipLibCheck: false, outDir: 'out' },
    files: ['main.ts'],
  }),
  'web/tsconfig.json': JSON.stringify({
    compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', target: 'ES2022', lib: ['ES2022', 'DOM'], types: [], strict: true, skipLibCheck: false, noEmit: true },
    files: ['main.ts'],
  }),
  'web/index.html': '<!doctype html><html><body><pre id="out"></pre><script type="module" src="./main.ts"></script></body></html>',
  'web/main.ts': `import { Cpu, Wgpu, fromData } from 'switchyard';
const cpu = new Cpu();
const x = fromData(cpu, [[1, 2], [3, 4]]);
document.getElementById('out')!.textContent = JSON.stringify(await x.matmul(x).toArray());
export const gpu = typeof navigator !== 'undefined' && 'gpu' in navigator ? await Wgpu.create() : undefined;
`,
};

let work: string;
let app: string;
let tarball: string;

async function install(): Promise<void> {
  if (useNpm) {
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: app });
    return;
  }
  const target = join(app, 'node_modules/switchyard');
  mkdirSync(target, { recursive: true });
  await run('tar', ['xzf', tarball, '-C', target, '--strip-components', '1']);
  const manifest = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
  for (const dep of Object.keys(manifest.dependencies ?? {})) {
    const link = join(app, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(join(repo, 'node_modules', dep), link, 'dir');
  }
}

function node(file: string): Promise<{ stdout: string; stderr: string }> {
  return run(process.execPath, [file], { cwd: app });
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'switchyard-package-'));
  app = join(work, 'app');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: repo, maxBuffer: 16 * 1024 * 1024 });
  const [info] = JSON.parse(stdout.slice(stdout.indexOf('['))) as Array<{ filename: string }>;
  tarball = join(work, info!.filename);
  for (const [name, text] of Object.entries(FILES)) {
    mkdirSync(dirname(join(app, name)), { recursive: true });
    writeFileSync(join(app, name), text);
  }
  await install();
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed tarball', () => {
  test('holds the built code and declarations, and no source maps', async () => {
    const { stdout } = await run('tar', ['tzf', tarball]);
    const files = stdout.split('\n').filter((f) => f.length > 0 && !f.endsWith('/'));
    for (const f of ['index.js', 'index.d.ts', 'browser.js', 'browser.d.ts', 'require.cjs']) expect(files).toContain(`package/lib/${f}`);
    expect(files).toContain('package/README.md');
    expect(files.filter((f) => !f.startsWith('package/lib/') && f !== 'package/package.json' && f !== 'package/README.md')).toEqual([]);
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    const lib = join(app, 'node_modules/switchyard/lib');
    const js = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? js(join(dir, e.name)) : e.name.endsWith('.js') ? [join(dir, e.name)] : []));
    const all = js(lib);
    expect(all.length).toBeGreaterThan(50);
    for (const f of all) expect(readFileSync(f, 'utf8')).not.toContain('sourceMappingURL');
  });
});

describe('an app that installed the tarball', () => {
  test('imports it from plain ESM JavaScript and runs a matmul, inline and on the worker pool', async () => {
    const { stdout } = await node('esm.mjs');
    const [values, inspected, pooled] = stdout.trim().split('\n');
    expect(JSON.parse(values!)).toEqual(reference());
    expect(inspected).toBe('Tensor(shape=[2, 2], dtype=float32, device=cpu)');
    expect(JSON.parse(pooled!)).toEqual(reference());
  });

  test('require() says the package is ES modules only; import() from CommonJS works', async () => {
    const { stdout } = await node('cjs.cjs');
    const [message, values] = stdout.trim().split('\n');
    expect(JSON.parse(message!)).toMatch(/ES module package.*await import\('switchyard'\)/);
    expect(JSON.parse(values!)).toEqual(reference());
  });

  test('type-checks from TypeScript with skipLibCheck false (Node settings, no DOM lib), and the output runs', async () => {
    const check = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: app }).catch((e: { stdout: string }) => e);
    expect(check.stdout).toBe('');
    const { stdout } = await node('out/main.js');
    expect(JSON.parse(stdout.trim())).toEqual(reference());
  });

  test('type-checks with browser settings (DOM lib, no @types/node)', async () => {
    const check = await run(process.execPath, [tsc, '-p', 'web/tsconfig.json'], { cwd: app }).catch((e: { stdout: string }) => e);
    expect(check.stdout).toBe('');
  });

  test('a vite build for the browser prints no Node-module warning and bundles no Node-only module', async () => {
    const warnings: string[] = [];
    const logger = createLogger('warn');
    const keep = (msg: string) => warnings.push(msg);
    logger.warn = keep;
    logger.warnOnce = keep;
    logger.error = keep;
    const out = join(work, 'web-dist');
    await build({
      root: join(app, 'web'),
      configFile: false,
      logLevel: 'warn',
      customLogger: logger,
      build: { outDir: out, emptyOutDir: true, target: 'esnext', rollupOptions: { onwarn: (w) => keep(w.message) } },
    });
    expect(warnings).toEqual([]);
    const assets = join(out, 'assets');
    const code = readdirSync(assets)
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(assets, f), 'utf8'))
      .join('\n');
    expect(code.length).toBeGreaterThan(1000);
    // Node-only code: piscina's internals, Dawn's binding, any static or literal import of a node: module.
    // (A name passed to process.getBuiltinModule at run time in Node bundles nothing, so module names alone are not checked.)
    for (const needle of ['kWorkerData', 'dawn.node']) expect(code).not.toContain(needle);
    expect(code).not.toMatch(/from\s*["']node:|import\(\s*["']node:|require\(\s*["']/);
    expect(existsSync(join(out, 'index.html'))).toBe(true);
  });
});
