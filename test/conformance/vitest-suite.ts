/** Registers the conformance table as vitest tests: one `test` per case, named `[backend] case`. */
import { afterAll, beforeAll, describe, test } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import { conformanceCases, runCase } from './suite.js';

export function runConformance<B extends Backend>(backendName: string, makeBackend: () => Promise<B> | B, teardown?: (b: B) => Promise<void>): void {
  describe(backendName, () => {
    let backend: B | undefined;
    beforeAll(async () => {
      backend = await makeBackend();
    });
    afterAll(async () => {
      if (backend && teardown) await teardown(backend);
    });
    for (const c of conformanceCases()) {
      test(`[${backendName}] ${c.name}`, async () => {
        if (!backend) throw new Error(`the ${backendName} backend was not created`);
        await runCase(c, backend);
      });
    }
  });
}
