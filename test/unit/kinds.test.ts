/**
 * The kinds each op accepts are declared once (src/ir/kinds.ts and the elementwise table). The
 * Tensor methods' `this` types come from that table (checked here by tsc, which `npm test` runs
 * first), shape inference enforces the same table, and calling every method on every dtype
 * shows the two agree: a DTypeError exactly where the type says no.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { DTypeError } from '../../src/errors.js';
import type { DType, Kind } from '../../src/ir/dtype.js';
import { BINARY_OPS, UNARY_OPS } from '../../src/ir/elementwise.js';
import { inferOutputs, type OpCall, type Meta } from '../../src/ir/infer.js';
import { OP_KINDS, kindsOf, type KindsOf } from '../../src/ir/kinds.js';
import type { OpAttrs, OpName } from '../../src/ir/ops.js';
import { arange, fromData, zeros } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';

const cpu = new Cpu({ threads: 0 });
afterAll(() => cpu.close());

/** Never called: each @ts-expect-error must be an error, and the other lines must compile. */
function typeChecks(f: Tensor<Cpu, 'float'>, i: Tensor<Cpu, 'int'>, b: Tensor<Cpu, 'bool'>): void {
  // @ts-expect-error relu takes float and int tensors
  b.relu();
  // @ts-expect-error sum takes float and int tensors
  b.sum();
  // @ts-expect-error so do max, argmax, neg, abs, sign, square, clamp
  b.max();
  // @ts-expect-error argmax
  b.argmax();
  // @ts-expect-error neg
  b.neg();
  // @ts-expect-error clamp
  b.clamp(0, 1);
  // @ts-expect-error add (arithmetic is for numbers)
  b.add(b);
  // @ts-expect-error greater (ordering is for numbers)
  b.greater(b);
  // @ts-expect-error mean takes float tensors only
  i.mean();
  // @ts-expect-error exp
  i.exp();
  // @ts-expect-error softmax
  i.softmax();
  // @ts-expect-error matmul
  i.matmul(i);
  // @ts-expect-error logicalNot takes bool tensors
  f.logicalNot();
  // @ts-expect-error logicalAnd
  i.logicalAnd(b);
  // Allowed: the same table says yes.
  const ok: Array<Tensor<Cpu, Kind>> = [i.relu(), i.sum(), i.max(0), i.clamp(0, 3), i.neg(), f.mean(), f.softmax(), b.equal(b), b.logicalNot(), b.logicalAnd(b), i.greater(1), f.matmul(f)];
  void ok;
}

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
/** The kinds a method's `this` type accepts. */
type ThisKinds<M extends keyof Tensor<Cpu, Kind>> = ThisParameterType<Tensor<Cpu, Kind>[M]> extends Tensor<Cpu, infer K> ? K : Kind;

/** Each kind-limited method and the op it runs. */
const METHOD_OPS = {
  neg: 'neg', abs: 'abs', exp: 'exp', log: 'log', log1p: 'log1p', sqrt: 'sqrt', rsqrt: 'rsqrt', sin: 'sin', cos: 'cos', tanh: 'tanh',
  erf: 'erf', sigmoid: 'sigmoid', relu: 'relu', gelu: 'gelu', recip: 'recip', square: 'square', sign: 'sign', isNan: 'isNan', isInf: 'isInf',
  logicalNot: 'logicalNot', clamp: 'clamp', clampMin: 'clamp', clampMax: 'clamp',
  add: 'add', sub: 'sub', mul: 'mul', div: 'div', pow: 'pow', remainder: 'remainder', maximum: 'maximum', minimum: 'minimum',
  equal: 'equal', notEqual: 'notEqual', greater: 'greater', greaterEqual: 'greaterEqual', lower: 'lower', lowerEqual: 'lowerEqual',
  logicalAnd: 'logicalAnd', logicalOr: 'logicalOr',
  sum: 'sum', mean: 'mean', max: 'max', min: 'min', prod: 'prod', argmax: 'argmax', argmin: 'argmin',
  softmax: 'softmax', logSoftmax: 'logSoftmax', matmul: 'matmul', scatterAdd: 'scatterAdd',
} as const;

/** Compiles only if every method's `this` kinds are exactly its op's kinds in the table. */
const methodTypesMatchTable: { [M in keyof typeof METHOD_OPS]: Equal<ThisKinds<M>, KindsOf<(typeof METHOD_OPS)[M]>> } = {
  neg: true, abs: true, exp: true, log: true, log1p: true, sqrt: true, rsqrt: true, sin: true, cos: true, tanh: true,
  erf: true, sigmoid: true, relu: true, gelu: true, recip: true, square: true, sign: true, isNan: true, isInf: true,
  logicalNot: true, clamp: true, clampMin: true, clampMax: true,
  add: true, sub: true, mul: true, div: true, pow: true, remainder: true, maximum: true, minimum: true,
  equal: true, notEqual: true, greater: true, greaterEqual: true, lower: true, lowerEqual: true,
  logicalAnd: true, logicalOr: true,
  sum: true, mean: true, max: true, min: true, prod: true, argmax: true, argmin: true,
  softmax: true, logSoftmax: true, matmul: true, scatterAdd: true,
};

const DTYPES: readonly DType[] = ['float32', 'int32', 'bool'];
const KIND: Record<DType, Kind> = { float32: 'float', float16: 'float', int32: 'int', bool: 'bool' };

/** Inputs and attributes for inferring one op on operands of `dtype`. */
function call(op: string, dtype: DType): [OpCall, Meta[]] | undefined {
  const c = rawCall(op, dtype);
  // The test walks ops by name; the pair becomes the union member its `op` names.
  return c && [{ op: c[0], attrs: c[2] } as OpCall, c[1]];
}

function rawCall(op: string, dtype: DType): [OpName, Meta[], OpAttrs[OpName]] | undefined {
  const m: Meta = { shape: [2, 2], dtype };
  const idx: Meta = { shape: [2, 2], dtype: 'int32' };
  if ((UNARY_OPS as readonly string[]).includes(op)) return [op as OpName, [m], {} as never];
  if ((BINARY_OPS as readonly string[]).includes(op)) return [op as OpName, [m, m], {} as never];
  switch (op) {
    case 'sum': case 'mean': case 'max': case 'min': case 'prod': case 'argmax': case 'argmin':
      return [op, [m], { dim: null, keepDims: false }];
    case 'softmax': case 'logSoftmax':
      return [op, [m], { dim: 1 }];
    case 'matmul':
      return [op, [m, m], {}];
    case 'clamp':
      return [op, [m], { min: 0, max: 1 }];
    case 'scatterAdd':
      return [op, [m, idx, m], { dim: 0 }];
  }
  return undefined;
}

describe('one kinds table', () => {
  it('shape inference rejects exactly the kinds the table leaves out', () => {
    const ops = [...UNARY_OPS, ...BINARY_OPS, ...Object.keys(OP_KINDS)];
    for (const op of ops) {
      for (const dtype of DTYPES) {
        const c = call(op, dtype);
        expect(c, op).toBeDefined();
        const allowed = kindsOf(op).includes(KIND[dtype]);
        let error: unknown;
        try {
          inferOutputs(...c!);
        } catch (e) {
          error = e;
        }
        expect(error === undefined, `${op} on ${dtype}`).toBe(allowed);
        if (!allowed) expect(error, `${op} on ${dtype}`).toBeInstanceOf(DTypeError);
      }
    }
  });

  it('each method throws a DTypeError exactly on the kinds its type rules out', () => {
    expect(Object.values(methodTypesMatchTable).every((v) => v)).toBe(true);
    for (const [method, op] of Object.entries(METHOD_OPS)) {
      for (const dtype of DTYPES) {
        const x = zeros(cpu, [2, 2], { dtype });
        const args: unknown[] =
          method === 'scatterAdd' ? [0, zeros(cpu, [2, 2], { dtype: 'int32' }), x] : method === 'clamp' ? [0, 1] : method.startsWith('clamp') ? [0] : (BINARY_OPS as readonly string[]).includes(op) || op === 'matmul' ? [x] : [];
        const fn: unknown = Reflect.get(x, method);
        if (typeof fn !== 'function') throw new Error(`no method ${method}`);
        let error: unknown;
        try {
          Reflect.apply(fn, x, args);
        } catch (e) {
          error = e;
        }
        const allowed = kindsOf(op).includes(KIND[dtype]);
        expect(error === undefined, `${method} on ${dtype}: ${String(error)}`).toBe(allowed);
        if (!allowed) expect(error).toBeInstanceOf(DTypeError);
      }
    }
  });

  it('the type checks above compile (tsc runs them)', () => {
    expect(typeof typeChecks).toBe('function');
    void arange;
    void fromData;
  });
});
