/**
 * Values found by a sequence of primitive tokens (strings, numbers, booleans) without building a
 * key string: a kernel walks its structure token by token (each step a Map lookup on an interned
 * or small value), where a string key would be concatenated, flattened and hashed per dispatch.
 * A walk must spell its own lengths (a count before each list), so no two sequences collide.
 */
export type Token = string | number | boolean;

export class TrieNode<V> {
  value: V | undefined;
  private next: Map<Token, TrieNode<V>> | undefined;

  /** The child under `token`, made on first use. */
  child(token: Token): TrieNode<V> {
    const next = (this.next ??= new Map());
    let c = next.get(token);
    if (!c) next.set(token, (c = new TrieNode<V>()));
    return c;
  }
}

export class KeyTrie<V> {
  private root = new TrieNode<V>();
  private values = 0;

  /** About `bound` values: a walk that starts past it starts from an empty trie (values are made again on demand). */
  constructor(private readonly bound: number) {}

  /** Where every walk starts. */
  start(): TrieNode<V> {
    // Emptied here, before a walk, not in `set`: a value set on a node of a dropped tree would be lost at once.
    if (this.values > this.bound) {
      this.root = new TrieNode<V>();
      this.values = 0;
    }
    return this.root;
  }

  /** Stores `value` at the node a walk reached; returns it. */
  set(node: TrieNode<V>, value: V): V {
    if (node.value === undefined) this.values++;
    node.value = value;
    return value;
  }
}
