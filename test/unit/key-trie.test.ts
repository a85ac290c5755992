import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { KeyTrie, type Token, type TrieNode } from '../../src/backends/wgpu/key-trie.js';

const walk = <V>(trie: KeyTrie<V>, tokens: readonly Token[]): TrieNode<V> => tokens.reduce((n, t) => n.child(t), trie.start());
const token = fc.oneof(fc.string({ maxLength: 3 }), fc.integer({ min: -3, max: 3 }), fc.boolean());
/** A JSON spelling of a sequence: the reference that tells sequences apart (1 and '1' differ). */
const spell = (tokens: readonly Token[]) => JSON.stringify(tokens);

describe('KeyTrie', () => {
  test('equal sequences reach the same node, different ones different nodes', () => {
    fc.assert(
      fc.property(fc.array(fc.array(token, { maxLength: 5 }), { minLength: 1, maxLength: 12 }), (seqs) => {
        const trie = new KeyTrie<string>(1000);
        for (const s of seqs) {
          const n = walk(trie, s);
          if (n.value === undefined) trie.set(n, spell(s));
        }
        for (const s of seqs) expect(walk(trie, s).value).toBe(spell(s));
      }),
    );
  });

  test('past its bound it starts empty, and keeps working', () => {
    const trie = new KeyTrie<number>(2);
    trie.set(walk(trie, ['a']), 1);
    trie.set(walk(trie, ['b']), 2);
    trie.set(walk(trie, ['c']), 3); // past the bound: the next walk starts from an empty trie
    expect(walk(trie, ['a']).value).toBeUndefined();
    expect(walk(trie, ['b']).value).toBeUndefined();
    trie.set(walk(trie, ['a']), 4);
    expect(walk(trie, ['a']).value).toBe(4);
  });
});
