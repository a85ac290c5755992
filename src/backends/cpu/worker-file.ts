/**
 * The file the pool's workers load: compiled JavaScript, never TypeScript through a transpiler
 * (which cost 1.5-4.7 s per worker at start). From `dist/` that is `worker.js` next to this file;
 * from the TypeScript sources (tsx, vitest) the worker is bundled once per content into one ES
 * module in the OS temp dir, with esbuild (which tsx and vite ship; a devDependency here).
 */
import { importNodeModule } from '../../platform.js';

const here = import.meta.url;

let file: Promise<string> | undefined;

export function workerFile(): Promise<string> {
  file ??= resolve();
  return file;
}

async function resolve(): Promise<string> {
  const { fileURLToPath } = await importNodeModule<typeof import('node:url')>('node:url');
  if (!here.endsWith('.ts')) return fileURLToPath(new URL('./worker.js', here));
  const [{ build }, { createHash }, fs, os, path] = await Promise.all([
    importNodeModule<typeof import('esbuild')>('esbuild'),
    importNodeModule<typeof import('node:crypto')>('node:crypto'),
    importNodeModule<typeof import('node:fs/promises')>('node:fs/promises'),
    importNodeModule<typeof import('node:os')>('node:os'),
    importNodeModule<typeof import('node:path')>('node:path'),
  ]);
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./worker.ts', here))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  const text = result.outputFiles[0]!.text;
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  const out = path.join(os.tmpdir(), `switchyard-cpu-worker-${hash}.mjs`);
  try {
    await fs.access(out);
  } catch {
    // Write then rename, so concurrent processes never load a half-written file.
    const tmp = `${out}.${process.pid}.tmp`;
    await fs.writeFile(tmp, text);
    await fs.rename(tmp, out);
  }
  return out;
}
