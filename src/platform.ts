/**
 * Where the code runs. Node-only modules (worker threads through piscina, node:os, Dawn) are
 * imported through `importNodeModule`, whose specifier is a variable: bundlers do not follow
 * it, so a browser bundle never contains them and prints no "externalized for browser
 * compatibility" warnings.
 */

/** Node.js (or a runtime that provides its APIs). */
export function isNode(): boolean {
  const p = (globalThis as { process?: { versions?: { node?: string } } }).process;
  return typeof p?.versions?.node === 'string';
}

/** A dynamic import that bundlers leave alone; call it only where `isNode()` holds. */
export function importNodeModule<T>(specifier: string): Promise<T> {
  return import(/* @vite-ignore */ /* webpackIgnore: true */ specifier);
}

/** Reports a problem that must not throw: a process warning in Node (printed, and seen by `process.on('warning')`), `console.warn` elsewhere. */
export function warn(warning: Error): void {
  const p = (globalThis as { process?: { emitWarning?: (warning: Error) => void } }).process;
  if (typeof p?.emitWarning === 'function') p.emitWarning(warning);
  else console.warn(warning);
}
