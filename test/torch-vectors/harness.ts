/**
 * Switchyard against PyTorch's own outputs ("other peers' vectors"): the machinery every
 * torch-vector test shares. The JSON files in test/fixtures/torch/ are written by
 * tools/torch-vectors/gen.py (see there for the format); each group's file is run by one test
 * file, case by case on every test backend, through that file's adapters (JSON op -> our API).
 * The outputs and the gradients of sum_k sum(output_k * g_k) are compared with torch's float32
 * values, within the tolerance the file states for its group (a case may state its own):
 * |ours - torch| <= atol + rtol |torch|, NaN matching NaN and an infinity the same infinity. Where a
 * mismatch is within float32 rounding of torch's own float64 result (ref64), the message says so.
 *
 * Ops we do not have are in a test file's `unsupported` (named, with the reason); known
 * differences are in its `known`, each with the torch versions it concerns, so that fixtures from
 * another torch (`/usr/bin/python3 tools/torch-vectors/gen.py test/fixtures/torch` on that
 * machine) are held to what that version does.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import type { Module } from '../../src/nn/module.js';
import { encodeSafetensors, type SafeTensor } from '../../src/record/safetensors.js';
import { loadTorchStateDict, torchEntries } from '../../src/record/torch.js';
import { fromData } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { testBackends } from '../autodiff/backends.js';

export type AD = Autodiff<Backend>;
export type F = Tensor<AD, 'float'>;
export type I = Tensor<AD, 'int'>;
export type Bool = Tensor<AD, 'bool'>;
export type Num = number | 'nan' | 'inf' | '-inf';
export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface Input {
  readonly name: string;
  readonly shape: number[];
  readonly dtype: 'float32' | 'int64' | 'bool';
  readonly data: Array<Num | boolean>;
  readonly grad: boolean;
}

export interface Tolerance {
  readonly rtol: number;
  readonly atol: number;
}

export interface Case {
  readonly name: string;
  readonly op: string;
  readonly args: Readonly<Record<string, Json>>;
  readonly inputs: Input[];
  readonly outputs: Array<{ shape: number[]; data: Num[] }>;
  readonly grads: Readonly<Record<string, Num[]>>;
  readonly ref64?: { outputs: Num[][]; grads: Readonly<Record<string, Num[]>> };
  readonly state_dict?: Readonly<Record<string, { shape: number[]; data: Num[] }>>;
  readonly tolerance?: Tolerance;
}

export interface Fixture {
  readonly group: string;
  readonly torch: string;
  readonly generator: number;
  readonly tolerance: Tolerance;
  readonly note: string;
  readonly absent: Array<{ op: string; reason: string }>;
  readonly cases: Case[];
}

// TORCH_VECTORS_DIR: fixtures written by another torch (gen.py on that machine) in place of the committed ones.
const DIR = process.env['TORCH_VECTORS_DIR'] ? `${process.env['TORCH_VECTORS_DIR'].replace(/\/$/, '')}/` : fileURLToPath(new URL('../fixtures/torch/', import.meta.url));
/** Every fixture file's name without `.json`: its group. */
export const FIXTURE_GROUPS: readonly string[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => f.slice(0, -'.json'.length))
  .sort();
const readFixture = (group: string): Fixture => JSON.parse(readFileSync(`${DIR}${group}.json`, 'utf8')) as Fixture;

export const num = (v: Num | boolean): number => (typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : v === 'nan' ? NaN : v === 'inf' ? Infinity : -Infinity);

/** torch.__version__ '1.13.0a0', '2.5.1+cpu' -> [major, minor]. */
export function version(v: string): [number, number] {
  const m = /^(\d+)\.(\d+)/.exec(v);
  return m ? [Number(m[1]), Number(m[2])] : [0, 0];
}
export const before = (v: string, major: number, minor: number): boolean => {
  const [a, b] = version(v);
  return a < major || (a === major && b < minor);
};

/** The fixed gradient weight g_k of output k (gen.py's gweight). */
export function weight(n: number, k: number): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => (((i * 37 + 11 * k + 5) % 17) - 8) / 8);
}

// ------------------------------------------------------------------------------------------------
// Adapters: JSON op -> our API.

export interface Ctx {
  readonly b: AD;
  readonly args: Readonly<Record<string, Json>>;
  /** Inputs by name (float, int or bool tensors). */
  readonly t: Readonly<Record<string, F>>;
  readonly int: Readonly<Record<string, I>>;
  readonly bool: Readonly<Record<string, Bool>>;
  /** The inputs in file order. */
  readonly list: ReadonlyArray<F | I | Bool>;
  readonly c: Case;
}

/** An adapter returns the outputs, and the module when the case has a state dict. */
export type Result = F | F[] | { outputs: F[]; module: Module<AD> };
/** Async for the ops whose output shape depends on the values (nonzero, maskedSelect, unique). */
export type Adapter = (x: Ctx) => Result | Promise<Result>;

export const a = {
  num: (x: Ctx, k: string, d?: number): number | undefined => (x.args[k] === undefined || x.args[k] === null ? d : num(x.args[k] as Num)),
  bool: (x: Ctx, k: string): boolean | undefined => (x.args[k] === undefined ? undefined : (x.args[k] as boolean)),
  list: (x: Ctx, k: string): number | number[] | undefined => (x.args[k] === undefined || x.args[k] === null ? undefined : (x.args[k] as number | number[])),
  red: (x: Ctx): 'none' | 'mean' | 'sum' => x.args['reduction'] as 'none' | 'mean' | 'sum',
};
/** A float or int input (targets are either). */
export const target = (x: Ctx, name = 'target'): F | I => x.t[name] ?? x.int[name]!;

export const unary = (f: (t: F, x: Ctx) => F): Adapter => (x) => f(x.t['x']!, x);

/** The case's state dict into `m`, through safetensors bytes as a file from torch would come. */
export function load(m: Module<AD>, c: Case): void {
  const tensors: Record<string, SafeTensor> = {};
  for (const [k, v] of Object.entries(c.state_dict ?? {})) tensors[k] = { dtype: 'float32', shape: v.shape, data: Float32Array.from(v.data, num) };
  loadTorchStateDict(m, encodeSafetensors(tensors));
}

export interface Known {
  readonly group: string;
  readonly cases: RegExp;
  /** The fixtures' torch versions this applies to. */
  readonly torch: (v: string) => boolean;
  readonly versions: string;
  /**
   * 'version': torch changed between versions, ours follows the newer; 'torch': torch's gradient
   * is not the derivative of its own forward (or its kernels disagree with each other), ours is
   * kept; 'ours': a deliberate difference of ours.
   */
  readonly kind: 'version' | 'torch' | 'ours';
  readonly why: string;
}

export const all = (): boolean => true;
export const before2 = (v: string): boolean => before(v, 2, 0);

// ------------------------------------------------------------------------------------------------
// Running and comparing.

function mismatch(got: ArrayLike<number>, want: readonly Num[], tol: Tolerance, ref?: readonly Num[]): string | undefined {
  if (got.length !== want.length) return `length ${got.length}, torch ${want.length}`;
  const bad: string[] = [];
  let count = 0;
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!;
    const w = num(want[i]!);
    const ok = Number.isNaN(w) ? Number.isNaN(g) : !Number.isFinite(w) ? g === w : Math.abs(g - w) <= tol.atol + tol.rtol * Math.abs(w);
    if (ok) continue;
    count++;
    if (bad.length < 6) bad.push(`[${i}] ours ${g} torch ${w}${ref ? ` torch64 ${num(ref[i]!)}` : ''}`);
  }
  return count === 0 ? undefined : `${count} of ${want.length} differ: ${bad.join('; ')}`;
}

async function runCase(b: AD, c: Case, tol: Tolerance, adapters: Readonly<Record<string, Adapter>>): Promise<string[]> {
  const adapter = adapters[c.op];
  if (!adapter) throw new Error(`no adapter for op '${c.op}': add one, or name it in UNSUPPORTED with the reason`);
  const made: Array<Tensor<AD>> = [];
  const t: Record<string, F> = {};
  const int: Record<string, I> = {};
  const bool: Record<string, Bool> = {};
  const list: Array<F | I | Bool> = [];
  const leaves: Array<[string, F]> = [];
  for (const input of c.inputs) {
    if (input.dtype === 'float32') {
      let x = fromData(b, Float32Array.from(input.data, num), { shape: input.shape });
      if (input.grad) {
        x = x.requireGrad();
        leaves.push([input.name, x]);
      }
      t[input.name] = x;
      list.push(x);
      made.push(x);
    } else if (input.dtype === 'int64') {
      const x = fromData(b, Int32Array.from(input.data, num), { shape: input.shape });
      int[input.name] = x;
      list.push(x);
      made.push(x);
    } else {
      const x = fromData(b, Uint8Array.from(input.data, num), { shape: input.shape });
      bool[input.name] = x;
      list.push(x);
      made.push(x);
    }
  }
  const result = await adapter({ b, args: c.args, t, int, bool, list, c });
  const outputs = Array.isArray(result) ? result : 'outputs' in result ? result.outputs : [result];
  const module = !Array.isArray(result) && 'module' in result ? result.module : undefined;
  const problems: string[] = [];
  if (outputs.length !== c.outputs.length) return [`${outputs.length} outputs, torch ${c.outputs.length}`];
  for (const [k, o] of outputs.entries()) {
    const want = c.outputs[k]!;
    if (o.shape.length !== want.shape.length || o.shape.some((d, i) => d !== want.shape[i])) {
      problems.push(`output ${k}: shape [${o.shape.join(', ')}], torch [${want.shape.join(', ')}]`);
      continue;
    }
    const m = mismatch((await o.toData()).values, want.data, tol, c.ref64?.outputs[k]);
    if (m) problems.push(`output ${k}: ${m}`);
  }
  // Buffers (BatchNorm's running statistics) are state dict entries but not parameters: torch records no gradient for them.
  const params = module ? torchEntries(module).filter((e) => e.param.trainable) : [];
  if (leaves.length + params.length > 0 && problems.length === 0) {
    const ws = outputs.map((o, k) => fromData(b, weight(o.size, k), { shape: o.shape }));
    let loss = outputs[0]!.mul(ws[0]!).sum();
    for (let k = 1; k < outputs.length; k++) loss = loss.add(outputs[k]!.mul(ws[k]!).sum());
    const grads = loss.backward();
    const check = async (name: string, g: F | undefined, transpose: boolean): Promise<void> => {
      const want = c.grads[name];
      if (!want) return void problems.push(`torch recorded no gradient for '${name}'`);
      let got: Float32Array = g ? (await g.toData()).values : new Float32Array(want.length);
      if (g && transpose && g.rank === 2) {
        const [r, cl] = g.shape as [number, number];
        const tr = new Float32Array(got.length);
        for (let i = 0; i < r; i++) for (let j = 0; j < cl; j++) tr[j * r + i] = got[i * cl + j]!;
        got = tr;
      }
      const m = mismatch(got, want, tol, c.ref64?.grads[name]);
      if (m) problems.push(`grad ${name}: ${m}`);
    };
    for (const [name, x] of leaves) await check(name, x.grad(grads), false);
    for (const e of params) await check(e.key, e.param.value.grad(grads), e.layout === 'transpose');
    grads.dispose();
    loss.dispose();
    for (const w of ws) w.dispose();
  }
  for (const o of outputs) o.dispose();
  module?.dispose();
  for (const x of made) x.dispose();
  return problems;
}

/** What a group's test file gives the suite. */
export interface Suite {
  /** The fixture groups (file names without .json) this test file runs. */
  readonly groups: readonly string[];
  readonly adapters: Readonly<Record<string, Adapter>>;
  /** Ops in the fixtures that Switchyard does not have, with the reason. */
  readonly unsupported?: Readonly<Record<string, string>>;
  /** Each entry expects its cases to disagree with the fixture (so it is noticed when they stop disagreeing). */
  readonly known?: readonly Known[];
}

/** Declares the tests of `suite.groups` (a test file awaits it at its top level). */
export async function torchVectorSuite(suite: Suite): Promise<void> {
  const { adapters, unsupported = {}, known: knowns = [] } = suite;
  const backends = await testBackends();
  afterAll(async () => {
    for (const b of backends) await b.close();
  });
  for (const group of suite.groups) {
    // Another torch's fixtures (TORCH_VECTORS_DIR) may lack a group its generator did not have yet.
    if (!existsSync(`${DIR}${group}.json`)) it.skip(`${group}: no ${group}.json in ${DIR}`, () => {});
    else describeFixture(readFixture(group), backends, adapters, unsupported, knowns);
  }
}

function describeFixture(fx: Fixture, backends: ReadonlyArray<{ readonly name: string; readonly backend: AD }>, adapters: Readonly<Record<string, Adapter>>, unsupported: Readonly<Record<string, string>>, knowns: readonly Known[]): void {
  describe(`torch ${fx.torch} vectors: ${fx.group} (${fx.cases.length} cases; rtol ${fx.tolerance.rtol}, atol ${fx.tolerance.atol})`, () => {
    it('the fixture names its torch version and every op maps to an adapter or a named skip', () => {
      expect(fx.torch).toMatch(/^\d+\.\d+/);
      for (const c of fx.cases) expect(adapters[c.op] !== undefined || unsupported[c.op] !== undefined, `op '${c.op}' of '${c.name}'`).toBe(true);
    });
    for (const absent of fx.absent) it.skip(`torch ${fx.torch} lacks ${absent.op}: ${absent.reason}`, () => {});
    for (const tb of backends) {
      describe(tb.name, () => {
        for (const c of fx.cases) {
          if (unsupported[c.op] !== undefined) {
            it.skip(`${c.name}: unsupported (${unsupported[c.op]})`, () => {});
            continue;
          }
          const known = knowns.find((k) => k.group === fx.group && k.cases.test(c.name) && k.torch(fx.torch));
          const tol = c.tolerance ?? fx.tolerance;
          if (known) {
            it(`${c.name} [known (${known.kind}, torch ${known.versions}): ${known.why}]`, async () => {
              expect((await runCase(tb.backend, c, tol, adapters)).length, 'a known difference went away: update the known list').toBeGreaterThan(0);
            });
            continue;
          }
          it(c.name, async () => {
            const problems = await runCase(tb.backend, c, tol, adapters);
            expect(problems.join('\n'), `${c.name} on ${tb.name} (torch ${fx.torch})`).toBe('');
          });
        }
      });
    }
  });
}
