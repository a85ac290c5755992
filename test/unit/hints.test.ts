/** Error messages and hints name only what users have: the README, never another file of the repository. */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const src = fileURLToPath(new URL('../../src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.c?ts$/.test(e.name) ? [join(dir, e.name)] : []));
}

test('no string in src names a markdown file other than the README', () => {
  const offending: string[] = [];
  for (const file of sources(src)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const code = line.trim();
        if (code.startsWith('//') || code.startsWith('*') || code.startsWith('/*')) return; // comments are for maintainers
        for (const m of code.matchAll(/\b([\w-]+)\.md\b/g)) if (m[1] !== 'README') offending.push(`${file}:${i + 1}: ${m[0]}`);
      });
  }
  expect(offending).toEqual([]);
});
