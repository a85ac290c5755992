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

/** Relaxed SIMD (Node >= 22, Chrome >= 114; Node 20 behind --experimental-wasm-relaxed-simd). */
export function relaxedSimdSupported(): boolean {
  relaxedSimd ??= wasmSimdSupported() && validates((m) => m.func('probe', [], ['v128'], (f) => void f.f32x4Const(1).f32x4Const(2).f32x4Const(3).f32x4RelaxedMadd()));
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
