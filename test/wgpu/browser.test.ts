/**
 * The browser proof: examples/browser bundled with vite's build API and run in headless
 * Chromium (Debian's package, driven by playwright-core): a matmul on WebGPU through
 * navigator.gpu (SwiftShader's adapter here), and on the CPU backend, served both with the
 * cross-origin isolation headers (SharedArrayBuffer) and without them (plain ArrayBuffer).
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { BIG, bigEntry, type BrowserResult } from '../../examples/browser/result.js';

const CHROMIUM = '/usr/bin/chromium';
const root = fileURLToPath(new URL('../../examples/browser/', import.meta.url));
/** WebGPU in headless Chromium without a GPU: SwiftShader's Vulkan. */
const FLAGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-angle=swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/** The expected product, by a float64 loop. */
function reference(): number[] {
  const a = [[1, 2, 3], [4, 5, 6]];
  const b = [[7, 8], [9, 10], [11, 12]];
  return a.flatMap((row) => [0, 1].map((j) => row.reduce((s, v, k) => s + v * b[k]![j]!, 0)));
}

/** The larger product, by a float64 loop (exact: small integers). */
function bigReference(): number[] {
  const out: number[] = [];
  for (let i = 0; i < BIG; i++) {
    for (let j = 0; j < BIG; j++) {
      let s = 0;
      for (let k = 0; k < BIG; k++) s += bigEntry(i, k, 1) * bigEntry(k, j, 2);
      out.push(s);
    }
  }
  return out;
}

function serve(dir: string, isolated: boolean): Promise<Server> {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path === '/' ? 'index.html' : path);
    if (!file.startsWith(dir) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    // Cross-origin isolation gives the page SharedArrayBuffer; without it the CPU backend uses ArrayBuffer.
    const isolation = isolated ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } : {};
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', ...isolation });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const hasChromium = existsSync(CHROMIUM);
const suite = hasChromium || process.env['CI'] === 'true' ? describe : describe.skip;
if (!hasChromium) console.warn(`skipping the browser test: ${CHROMIUM} is missing (apt-get install -y chromium)`);

suite('browser bundle in headless Chromium', () => {
  let out: string;
  let profile: string;
  let server: Server;
  let plainServer: Server;
  let browser: BrowserContext;

  beforeAll(async () => {
    if (!hasChromium) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    out = mkdtempSync(join(tmpdir(), 'switchyard-browser-'));
    profile = mkdtempSync(join(tmpdir(), 'switchyard-chromium-'));
    await build({ root, configFile: false, logLevel: 'warn', build: { outDir: out, emptyOutDir: true, target: 'esnext' } });
    server = await serve(out, true);
    plainServer = await serve(out, false);
    browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => server?.close(r));
    await new Promise((r) => plainServer?.close(r));
    if (out) rmSync(out, { recursive: true, force: true });
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function runPage(query: string, on: Server = server): Promise<BrowserResult> {
    const page = await browser.newPage();
    const logs: string[] = [];
    page.on('console', (m) => logs.push(m.text()));
    page.on('pageerror', (e) => logs.push(e.message));
    const { port } = on.address() as AddressInfo;
    await page.goto(`http://127.0.0.1:${port}/${query}`);
    await page.waitForFunction(() => window.__switchyard !== undefined, undefined, { timeout: 60_000 });
    const r = await page.evaluate(() => window.__switchyard!);
    await page.close();
    if (r.error) throw new Error(`${r.error}\n${logs.join('\n')}`);
    return r;
  }

  test('the bundle does not contain the Node-only webgpu package', () => {
    const assets = join(out, 'assets');
    const js = readdirSync(assets).filter((f) => f.endsWith('.js'));
    expect(js.length).toBeGreaterThan(0);
    for (const f of js) {
      const code = readFileSync(join(assets, f), 'utf8');
      expect(code).not.toContain('dawn.node');
      expect(code).not.toMatch(/from\s*["']webgpu["']/);
    }
  });

  test('a matmul on WebGPU through navigator.gpu', async () => {
    const r = await runPage('?backend=wgpu');
    expect(r.backend).toBe('wgpu');
    expect(r.adapter).not.toBe('none');
    expect(r.shape).toEqual([2, 2]);
    expect(r.values).toEqual(reference());
    expect(r.big).toEqual(bigReference());
  });

  test('the same matmul on the CPU backend (inline, no workers), cross-origin isolated', async () => {
    const r = await runPage('?backend=cpu');
    expect(r.backend).toBe('cpu');
    expect(r.isolated).toBe(true);
    expect(r.values).toEqual(reference());
    expect(r.big).toEqual(bigReference());
  });

  test('the CPU backend without cross-origin isolation headers (no SharedArrayBuffer)', async () => {
    const r = await runPage('?backend=cpu', plainServer);
    expect(r.backend).toBe('cpu');
    expect(r.isolated).toBe(false);
    expect(r.values).toEqual(reference());
    expect(r.big).toEqual(bigReference());
  });
});
