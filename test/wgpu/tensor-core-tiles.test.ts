/**
 * Every tensor-core tile, mode and layout against float64 (test/conformance/tensor-core-tiles.ts),
 * where the adapter has tensor cores; elsewhere (lavapipe) the test says why it skips.
 */
import { expect, test } from 'vitest';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { Runtime } from '../../src/runtime/runtime.js';
import { checkAllTiles, TC_LAYOUTS, TC_MODES, tcTolerance, tilesFor } from '../conformance/tensor-core-tiles.js';
import { describeGpu } from './gpu.js';

test('the tile check covers every mode with a tolerance that separates them', () => {
  expect(TC_MODES).toHaveLength(4);
  // f16 in, f32 out is f32 accumulation: far tighter than anything rounded to f16.
  expect(tcTolerance(TC_MODES[1]!)).toBeLessThan(tcTolerance(TC_MODES[0]!) / 10);
  expect(tcTolerance(TC_MODES[3]!)).toBeLessThan(tcTolerance(TC_MODES[2]!) / 10);
  // Every list's tiles appear in every mode where they fit 48 KiB; split terms need twice the staging.
  expect(tilesFor(TC_MODES[0]!, 49152).length).toBeGreaterThan(tilesFor(TC_MODES[3]!, 49152).length);
  expect(TC_LAYOUTS.some(([, , , transposed]) => transposed)).toBe(true);
});

describeGpu('every tensor-core tile against float64', () => {
  test('all tiles, modes and layouts on this adapter', { timeout: 600_000 }, async (t) => {
    const w = new Wgpu({ runtime: new Runtime(), autotune: false });
    try {
      const ctx = await w.exec(w.defaultDevice()).ready();
      if (!ctx.features.tensorCores) t.skip(`${ctx.adapterName} has no tensor cores (subgroup matrices)`);
      const failures: string[] = [];
      const { checked, failed } = await checkAllTiles(ctx, (line) => {
        if (line.startsWith('FAILED')) failures.push(line);
      });
      expect(failures).toEqual([]);
      expect(failed).toBe(0);
      expect(checked).toBeGreaterThan(100);
    } finally {
      await w.close();
    }
  });
});
