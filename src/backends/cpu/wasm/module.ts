/**
 * The CPU kernels' wasm module: matmul, reductions, softmax and one function per elementwise
 * table entry that has a SIMD form, generated in TypeScript (./emit.ts) and compiled once per
 * process. Workers receive the compiled `WebAssembly.Module` (V8 shares its code, tier-ups
 * included) and instantiate it on the backend's shared memory.
 */
import './globals.js';
import { ModuleBuilder } from './emit.js';
import { Unsupported, emitElementwise, ewKey, ewVariants } from './elementwise-gen.js';
import { emitMatmul } from './matmul-gen.js';
import { emitReductions } from './reduce-gen.js';

export interface KernelModule {
  readonly module: WebAssembly.Module;
  /** Built with f32x4.relaxed_madd (fused multiply-add) in matmul and the math functions. */
  readonly relaxed: boolean;
}

function validates(build: (m: ModuleBuilder) => void): boolean {
  try {
    if (typeof WebAssembly !== 'object' || typeof SharedArrayBuffer === 'undefined') return false;
    const m = new ModuleBuilder();
    build(m);
    return WebAssembly.validate(m.encode());
  } catch {
    return false;
  }
}

let simd: boolean | undefined;
let relaxedSimd: boolean | undefined;

/** WebAssembly with 128-bit SIMD and a shared (threads) memory: what the wasm kernels need. */
export function wasmSimdSupported(): boolean {
  simd ??= validates((m) => m.func('probe', [], ['v128'], (f) => void f.f32x4Const(1).f32x4Const(2).f32x4Add()));
  return simd;
}

const probeRelaxed = (m: ModuleBuilder): void => void m.func('probe', [], ['v128'], (f) => void f.f32x4Const(1).f32x4Const(2).f32x4Const(3).f32x4RelaxedMadd());

interface NodeProcess {
  readonly env?: Record<string, string | undefined>;
  getBuiltinModule?(id: 'node:v8'): { setFlagsFromString(flags: string): void } | undefined;
}

/** `SWITCHYARD_RELAXED_SIMD=0` keeps the plain SIMD kernels (results then match engines without FMA bit for bit). */
function relaxedSimdWanted(): boolean {
  const p = (globalThis as { process?: NodeProcess }).process;
  return p?.env?.SWITCHYARD_RELAXED_SIMD !== '0';
}

/**
 * Node 20 has V8's complete relaxed-SIMD implementation behind a flag (Node 22 ships it on):
 * turning the flag on before the first wasm compile makes matmul about 1.3x faster there.
 * `process.getBuiltinModule` (Node >= 20.16) reaches node:v8 without an import a bundler would see.
 */
function enableRelaxedSimdFlag(): void {
  const p = (globalThis as { process?: NodeProcess }).process;
  try {
    p?.getBuiltinModule?.('node:v8')?.setFlagsFromString('--experimental-wasm-relaxed-simd');
  } catch {
    // An engine that refuses the flag keeps the plain kernels.
  }
}

/** Relaxed SIMD (Node >= 22 and Chrome >= 114 by default; turned on here under Node 20.16+), unless SWITCHYARD_RELAXED_SIMD=0. */
export function relaxedSimdSupported(): boolean {
  if (relaxedSimd === undefined) {
    if (!wasmSimdSupported() || !relaxedSimdWanted()) relaxedSimd = false;
    else {
      if (!validates(probeRelaxed)) enableRelaxedSimdFlag();
      relaxedSimd = validates(probeRelaxed);
    }
  }
  return relaxedSimd;
}

const built = new Map<boolean, KernelModule>();

/** The generated module's bytes (exported for tests and inspection). */
export function kernelModuleBytes(relaxed: boolean): Uint8Array<ArrayBuffer> {
  const m = new ModuleBuilder();
  emitMatmul(m, relaxed);
  emitReductions(m, relaxed);
  for (const v of ewVariants()) {
    try {
      emitElementwise(m, v, relaxed);
    } catch (e) {
      // No SIMD form (pow, remainder, sin, ...): that variant stays on the JS kernel.
      if (!(e instanceof Unsupported)) throw new Error(`generating ${ewKey(v)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return m.encode();
}

/** The compiled module, relaxed where the engine supports it. */
export function kernelModule(relaxed = relaxedSimdSupported()): KernelModule {
  let k = built.get(relaxed);
  if (!k) {
    k = { module: new WebAssembly.Module(kernelModuleBytes(relaxed)), relaxed };
    built.set(relaxed, k);
  }
  return k;
}
