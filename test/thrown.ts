/** What `f` throws; a call that does not throw fails the test here (an error test that passes without an error is no test). */
export function thrown(f: () => unknown): unknown {
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('expected a throw');
}
