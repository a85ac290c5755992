/** A value as an untyped JavaScript caller passes it (null for a tensor, a string for a number): through an untyped call, on purpose. */
const identity: (...args: unknown[]) => unknown = (x) => x;
export function untyped<V>(v: unknown): V {
  const through: Function = identity;
  return Reflect.apply(through, undefined, [v]);
}
