/**
 * Elementwise wasm functions generated from the same table as the JS and WGSL kernels
 * (src/ir/elementwise.ts): each table expression is parsed (./expr.ts) and lowered to f32x4 /
 * i32x4 code. An expression the lowering does not cover (pow, remainder, sin, cos, float -> int
 * casts, int division) raises `Unsupported`, and that op keeps its JS kernel.
 *
 * Every generated function has the signature
 *   (out, n, rows, a, sa, ra, b, sb, rb, c, sc, rc, p0: f64, p1: f64)
 * and fills `rows` rows of `n` contiguous output elements: operand k starts at byte address
 * `k`, steps `sk` elements along a row and `rk` elements from one row to the next. Rows whose
 * strides are all 0 or 1 run four lanes at a time with v128 loads (or a hoisted splat); other
 * strides and the last < 4 elements of a row gather lane by lane.
 */
import { BINARY, UNARY, type BinaryOp, type UnaryOp } from '../../../ir/elementwise.js';
import type { DType } from '../../../ir/dtype.js';
import { kindOf } from '../../../ir/dtype.js';
import { Body, type Local, type ModuleBuilder } from './emit.js';
import { parseExpr, type Expr } from './expr.js';
import { Vec } from './simd-math.js';

export class Unsupported extends Error {}

/** One generated function: the expression and the dtypes it was lowered for. */
export interface EwVariant {
  readonly expr: string;
  readonly inputs: readonly DType[];
  readonly output: DType;
}

export function ewKey(v: EwVariant): string {
  return `ew|${v.inputs.join(',')}>${v.output}|${v.expr}`;
}

/** Every (expression, dtypes) the kernel table can produce, as elementwiseOf (kernels/elementwise.ts) picks them. */
export function ewVariants(): EwVariant[] {
  const out: EwVariant[] = [];
  const dtypesOf = (kinds: readonly string[]): DType[] => (['float32', 'int32', 'bool'] as const).filter((d) => kinds.includes(kindOf(d)));
  const pick = (spec: { js: string; jsInt?: string; jsBool?: string }, d: DType) => (d === 'int32' ? (spec.jsInt ?? spec.js) : d === 'bool' ? (spec.jsBool ?? spec.js) : spec.js);
  for (const op of Object.keys(UNARY) as UnaryOp[]) {
    const s = UNARY[op];
    for (const d of dtypesOf(s.kinds)) out.push({ expr: pick(s, d), inputs: [d], output: s.out === 'bool' ? 'bool' : d });
  }
  for (const op of Object.keys(BINARY) as BinaryOp[]) {
    const s = BINARY[op];
    for (const d of dtypesOf(s.kinds)) {
      const output = s.out === 'bool' ? 'bool' : d;
      out.push({ expr: pick(s, d), inputs: [d, d], output });
      out.push({ expr: pick(s, d).replace(/\bb\b/g, 'p0'), inputs: [d], output });
    }
  }
  for (const d of ['float32', 'int32'] as const) out.push({ expr: '(a < p0 ? p0 : a) > p1 ? p1 : (a < p0 ? p0 : a)', inputs: [d], output: d }); // clamp (src/backends/cpu/kernels/elementwise.ts)
  for (const from of ['float32', 'int32', 'bool'] as const) {
    for (const to of ['float32', 'int32', 'bool'] as const) {
      const expr = to === 'bool' ? 'a !== 0 ? 1 : 0' : to === 'int32' && from === 'float32' ? 'a | 0' : 'a';
      out.push({ expr, inputs: [from], output: to });
    }
    out.push({ expr: 'a', inputs: [from], output: from }); // copy
    out.push({ expr: 'a ? b : c', inputs: ['bool', from, from], output: from });
    out.push({ expr: 'a ? p0 : b', inputs: ['bool', from], output: from }); // maskFill
  }
  // Distinct keys only.
  const seen = new Set<string>();
  return out.filter((v) => !seen.has(ewKey(v)) && (seen.add(ewKey(v)), true));
}

// ---- lowering ------------------------------------------------------------------------------------

/** f: f32x4; i: i32x4 holding int32 values; w: i32x4 that JS would compute beyond int32 (valid only under `| 0`); m: lane masks. */
type Kind = 'f' | 'i' | 'w' | 'm';
type Val = { readonly kind: Kind; readonly l: Local } | { readonly kind: 'n'; readonly n: number | 'p0' | 'p1' };

interface Scope {
  readonly v: Vec;
  /** The loaded operands a, b, c. */
  readonly operands: readonly Val[];
  /** p0 / p1 splatted as f32x4 and i32x4, hoisted out of the loops. */
  readonly params: Record<'p0' | 'p1', { f: Local; i: Local }>;
}

function operandKind(d: DType): Kind {
  return d === 'float32' ? 'f' : 'i';
}

function lowerExpr(e: Expr, s: Scope, want: 'f' | 'i'): Val {
  const { v } = s;
  const f = v.f;
  const num = (x: Val, kind: 'f' | 'i'): Local => {
    if (x.kind !== 'n') throw new Error('not a number');
    if (x.n === 'p0' || x.n === 'p1') return kind === 'f' ? s.params[x.n].f : s.params[x.n].i;
    const n = x.n;
    if (kind === 'i') {
      if (!Number.isInteger(n) || n < -(2 ** 31) || n >= 2 ** 31) throw new Unsupported(`${n} as an int`);
      return v.let(() => f.i32x4Const(n));
    }
    return v.let(() => f.f32x4Const(n));
  };
  /** Both sides as one kind of f / i (numbers take the other side's kind, or `want`). */
  const unify = (a: Val, b: Val, w: 'f' | 'i'): [Kind, Local, Local] => {
    if (a.kind === 'n' && b.kind === 'n') return [w, num(a, w), num(b, w)];
    if (a.kind === 'n' || b.kind === 'n') {
      const other = a.kind === 'n' ? b : a;
      if (other.kind !== 'f' && other.kind !== 'i') throw new Unsupported(`a number beside a ${other.kind} value`);
      const k = other.kind;
      return a.kind === 'n' ? [k, num(a, k), other.l] : [k, other.l, num(b, k)];
    }
    if (a.kind !== b.kind || (a.kind !== 'f' && a.kind !== 'i')) throw new Unsupported(`operands of kinds ${a.kind}, ${b.kind}`);
    return [a.kind, a.l, b.l];
  };
  const mask = (x: Val): Local => {
    switch (x.kind) {
      case 'm':
        return x.l;
      case 'i':
        return v.let(() => f.get(x.l).i32x4Const(0).i32x4Ne());
      case 'f':
        // JS truthiness: neither 0 nor NaN.
        return v.let(() => f.get(x.l).f32x4Const(0).f32x4Ne().get(x.l).get(x.l).f32x4Eq().v128And());
      case 'w':
        throw new Unsupported('truthiness of an unwrapped int');
      case 'n': {
        if (typeof x.n === 'number') return v.let(() => f.i32x4Const(x.n !== 0 && x.n === x.n ? -1 : 0));
        const p = s.params[x.n].f;
        return v.let(() => f.get(p).f32x4Const(0).f32x4Ne().get(p).get(p).f32x4Eq().v128And());
      }
    }
  };
  const fArg = (x: Val): Local => {
    if (x.kind === 'n') return num(x, 'f');
    if (x.kind !== 'f') throw new Unsupported(`a float function of a ${x.kind} value`);
    return x.l;
  };

  switch (e.kind) {
    case 'num':
      return { kind: 'n', n: e.value };
    case 'var': {
      if (e.name === 'p0' || e.name === 'p1') return { kind: 'n', n: e.name };
      const k = ['a', 'b', 'c'].indexOf(e.name);
      const x = s.operands[k];
      if (!x) throw new Unsupported(`unknown variable ${e.name}`);
      return x;
    }
    case 'unary': {
      const x = lowerExpr(e.x, s, want);
      if (e.op === '!') {
        const m = mask(x);
        return { kind: 'm', l: v.let(() => f.get(m).v128Not()) };
      }
      if (x.kind === 'n') {
        if (typeof x.n !== 'number') throw new Unsupported('negated parameter');
        return { kind: 'n', n: -x.n };
      }
      if (x.kind === 'f') return { kind: 'f', l: v.let(() => f.get(x.l).f32x4Neg()) };
      if (x.kind === 'i') return { kind: 'w', l: v.let(() => f.get(x.l).i32x4Neg()) };
      throw new Unsupported(`negation of a ${x.kind} value`);
    }
    case 'binary': {
      const op = e.op;
      // 1 + erf(z) (GELU) is erfc(-z): computed directly, it keeps its relative accuracy where the sum cancels.
      const erfArg = (x: Expr) => (x.kind === 'call' && x.fn === 'erf' && x.args.length === 1 ? x.args[0] : undefined);
      const one = (x: Expr) => x.kind === 'num' && x.value === 1;
      const z = op === '+' ? (one(e.l) ? erfArg(e.r) : one(e.r) ? erfArg(e.l) : undefined) : undefined;
      if (z) {
        const zv = lowerExpr(z, s, 'f');
        const zl = zv.kind === 'n' ? num(zv, 'f') : zv.kind === 'f' ? zv.l : undefined;
        if (!zl) throw new Unsupported('erf of a non-float');
        const neg = v.let(() => f.get(zl).f32x4Neg());
        return { kind: 'f', l: v.erfc(neg) };
      }
      if (op === '&&' || op === '||') {
        const a = mask(lowerExpr(e.l, s, want));
        const b = mask(lowerExpr(e.r, s, want));
        return { kind: 'm', l: v.let(() => (op === '&&' ? f.get(a).get(b).v128And() : f.get(a).get(b).v128Or())) };
      }
      if (op === '|') {
        if (e.r.kind !== 'num' || e.r.value !== 0) throw new Unsupported('| with anything but 0');
        const x = lowerExpr(e.l, s, 'i');
        if (x.kind === 'i' || x.kind === 'w') return { kind: 'i', l: x.l };
        // Float -> int32 (ToInt32 wraps modulo 2^32; truncation in wasm saturates): the JS kernel keeps it.
        throw new Unsupported(`| 0 of a ${x.kind} value`);
      }
      const a = lowerExpr(e.l, s, want);
      const b = lowerExpr(e.r, s, want);
      if (a.kind === 'n' && b.kind === 'n' && typeof a.n === 'number' && typeof b.n === 'number') {
        const x = a.n;
        const y = b.n;
        const folded: Record<string, number> = { '+': x + y, '-': x - y, '*': x * y, '/': x / y };
        if (op in folded) return { kind: 'n', n: folded[op]! };
      }
      const [kind, l, r] = unify(a, b, want);
      const bin = (emit: () => void): Local => v.let(() => (f.get(l).get(r), emit()));
      if (kind === 'f') {
        switch (op) {
          case '+': return { kind: 'f', l: bin(() => f.f32x4Add()) };
          case '-': return { kind: 'f', l: bin(() => f.f32x4Sub()) };
          case '*': return { kind: 'f', l: bin(() => f.f32x4Mul()) };
          case '/': return { kind: 'f', l: bin(() => f.f32x4Div()) };
          case '===': return { kind: 'm', l: bin(() => f.f32x4Eq()) };
          case '!==': return { kind: 'm', l: bin(() => f.f32x4Ne()) };
          case '<': return { kind: 'm', l: bin(() => f.f32x4Lt()) };
          case '>': return { kind: 'm', l: bin(() => f.f32x4Gt()) };
          case '<=': return { kind: 'm', l: bin(() => f.f32x4Le()) };
          case '>=': return { kind: 'm', l: bin(() => f.f32x4Ge()) };
        }
      } else {
        switch (op) {
          case '+': return { kind: 'w', l: bin(() => f.i32x4Add()) };
          case '-': return { kind: 'w', l: bin(() => f.i32x4Sub()) };
          case '===': return { kind: 'm', l: bin(() => f.i32x4Eq()) };
          case '!==': return { kind: 'm', l: bin(() => f.i32x4Ne()) };
          case '<': return { kind: 'm', l: bin(() => f.i32x4LtS()) };
          case '>': return { kind: 'm', l: bin(() => f.i32x4GtS()) };
          case '<=': return { kind: 'm', l: bin(() => f.i32x4LeS()) };
          case '>=': return { kind: 'm', l: bin(() => f.i32x4GeS()) };
        }
      }
      throw new Unsupported(`${op} on ${kind} values`);
    }
    case 'cond': {
      const m = mask(lowerExpr(e.test, s, want));
      const t = lowerExpr(e.then, s, want);
      const o = lowerExpr(e.else, s, want);
      const [kind, tl, ol] = unify(t, o, want);
      return { kind, l: v.let(() => f.get(tl).get(ol).get(m).v128Bitselect()) };
    }
    case 'call': {
      const args = e.args.map((x) => lowerExpr(x, s, want));
      const one = (emit: (x: Local) => Local): Val => {
        if (args.length !== 1) throw new Unsupported(`${e.fn} with ${args.length} arguments`);
        return { kind: 'f', l: emit(fArg(args[0]!)) };
      };
      switch (e.fn) {
        case 'Math.abs': {
          const x = args[0]!;
          if (x.kind === 'i') return { kind: 'w', l: v.let(() => f.get(x.l).i32x4Abs()) };
          return one((y) => v.let(() => f.get(y).f32x4Abs()));
        }
        case 'Math.sqrt':
          return one((y) => v.let(() => f.get(y).f32x4Sqrt()));
        case 'Math.floor':
          return one((y) => v.let(() => f.get(y).f32x4Floor()));
        case 'Math.exp':
          return one((y) => v.exp(y));
        case 'Math.log':
          return one((y) => v.log(y));
        case 'Math.log1p':
          return one((y) => v.log1p(y));
        case 'Math.tanh':
          return one((y) => v.tanh(y));
        case 'erf':
          return one((y) => v.erf(y));
        case 'Math.max':
        case 'Math.min': {
          if (args.length !== 2) throw new Unsupported(`${e.fn} arity`);
          const a = fArg(args[0]!);
          const b = fArg(args[1]!);
          return { kind: 'f', l: v.let(() => (f.get(a).get(b), e.fn === 'Math.max' ? f.f32x4Max() : f.f32x4Min())) };
        }
        case 'Math.imul': {
          const [kind, a, b] = unify(args[0]!, args[1]!, 'i');
          if (kind !== 'i') throw new Unsupported('imul of floats');
          return { kind: 'i', l: v.let(() => f.get(a).get(b).i32x4Mul()) };
        }
      }
      throw new Unsupported(`no SIMD form of ${e.fn}`);
    }
  }
}

/** Lowers the whole expression and converts it to the output dtype's lane type. */
function lowerRoot(e: Expr, s: Scope, out: DType): Local {
  const want = out === 'float32' ? 'f' : 'i';
  const x = lowerExpr(e, s, want);
  const v = s.v;
  if (x.kind === 'n') {
    if (typeof x.n !== 'number') return want === 'f' ? s.params[x.n].f : s.params[x.n].i;
    const n = x.n;
    return v.let(() => (want === 'f' ? v.f.f32x4Const(n) : v.f.i32x4Const(n | 0)));
  }
  if (out === 'float32') {
    if (x.kind === 'f') return x.l;
    if (x.kind === 'i') return v.let(() => v.f.get(x.l).f32x4ConvertI32x4S());
  } else if (x.kind === 'i') {
    return x.l;
  }
  throw new Unsupported(`a ${x.kind} result stored as ${out}`);
}

// ---- code generation -----------------------------------------------------------------------------

const bytesOf = (d: DType): number => (d === 'bool' ? 1 : 4);

/** Adds the function for `variant` to the module (throws Unsupported, leaving the module unchanged, if the expression has no SIMD form). */
export function emitElementwise(m: ModuleBuilder, variant: EwVariant, relaxed: boolean): void {
  const ast = parseExpr(variant.expr);
  const arity = variant.inputs.length;
  // Dry run: lower once into a throwaway body, so an Unsupported expression adds nothing.
  {
    const probe = new Body(['i32']);
    const v = new Vec(probe, relaxed);
    const params = { p0: { f: v.tmp(), i: v.tmp() }, p1: { f: v.tmp(), i: v.tmp() } };
    lowerRoot(ast, { v, operands: variant.inputs.map((d) => ({ kind: operandKind(d), l: v.tmp() })), params }, variant.output);
  }
  const I = 'i32' as const;
  m.func(ewKey(variant), [I, I, I, I, I, I, I, I, I, I, I, I, 'f64', 'f64'], [], (f, [out, n, rows, a, sa, ra, b, sb, rb, c, sc, rc, p0, p1]) => {
    const base = [a, b, c].slice(0, arity);
    const step = [sa, sb, sc].slice(0, arity);
    const rowStep = [ra, rb, rc].slice(0, arity);
    const v = new Vec(f, relaxed);
    const splatF = (p: Local) => v.let(() => f.get(p).f32DemoteF64().f32x4Splat());
    const splatI = (p: Local) => v.let(() => f.get(p).i32TruncSatF64S().i32x4Splat());
    const params = { p0: { f: splatF(p0), i: splatI(p0) }, p1: { f: splatF(p1), i: splatI(p1) } };
    const ob = bytesOf(variant.output);
    const ib = variant.inputs.map(bytesOf);
    const row = f.local('i32');
    const i = f.local('i32');
    const cursor = base.map(() => f.local('i32'));
    const oc = f.local('i32');
    const cnt = f.local('i32');

    /** Loads operand k's four lanes at `addr` (an emitter pushing the address) as its lane type. */
    const loadVec = (k: number, addr: () => void): Local => {
      const d = variant.inputs[k]!;
      return v.let(() => {
        addr();
        if (d === 'bool') f.v128Load32Zero().i16x8ExtendLowI8x16U().i32x4ExtendLowI16x8U();
        else f.v128Load();
      });
    };
    const splatScalar = (k: number, addr: () => void): Local => {
      const d = variant.inputs[k]!;
      return v.let(() => {
        addr();
        if (d === 'bool') f.i32Load8U().i32x4Splat();
        else if (d === 'int32') f.i32Load().i32x4Splat();
        else f.v128Load32Splat();
      });
    };
    const storeVec = (val: Local, addr: () => void) => {
      addr();
      if (variant.output === 'bool') f.get(val).get(val).i16x8NarrowI32x4S().get(val).get(val).i16x8NarrowI32x4S().i8x16NarrowI16x8U().v128Store32Lane(0);
      else f.get(val).v128Store();
    };
    const compute = (operands: Local[]): Local =>
      lowerRoot(ast, { v, operands: operands.map((l, k) => ({ kind: operandKind(variant.inputs[k]!), l })), params }, variant.output);

    f.forLt(row, () => f.i32(0), () => f.get(rows), 1, () => {
      f.i32(0).set(i);
      // Vector path: every operand steps 0 or 1 along the row.
      const eligible = () => {
        f.i32(1);
        // s >>> 1 === 0: s is 0 or 1 (a negative step is not).
        for (const s of step) f.get(s).i32(1).i32ShrU().i32Eqz().i32And();
      };
      eligible();
      f.if(() => {
        for (let pattern = 0; pattern < 1 << arity; pattern++) {
          // bit k set: operand k steps 1; clear: it stays (splat).
          f.i32(1);
          for (let k = 0; k < arity; k++) f.get(step[k]!).i32((pattern >> k) & 1).i32Eq().i32And();
          f.if(() => {
            const splats = base.map((b, k) => ((pattern >> k) & 1 ? undefined : splatScalar(k, () => f.get(b))));
            for (let k = 0; k < arity; k++) f.get(base[k]!).set(cursor[k]!);
            f.get(out).set(oc);
            f.block(() =>
              f.loop(() => {
                f.get(i).i32(4).i32Add().get(n).i32GtS().brIf(1);
                const ops = base.map((_, k) => splats[k] ?? loadVec(k, () => f.get(cursor[k]!)));
                const r = compute(ops);
                storeVec(r, () => f.get(oc));
                for (let k = 0; k < arity; k++) if ((pattern >> k) & 1) f.get(cursor[k]!).i32(4 * ib[k]!).i32Add().set(cursor[k]!);
                f.get(oc).i32(4 * ob).i32Add().set(oc);
                f.get(i).i32(4).i32Add().set(i);
                f.br(0);
              }),
            );
          });
        }
      });
      // Gather path: from element i to the end of the row, four lanes at a time.
      for (let k = 0; k < arity; k++) f.get(base[k]!).get(i).get(step[k]!).i32Mul().i32(ib[k]!).i32Mul().i32Add().set(cursor[k]!);
      f.get(out).get(i).i32(ob).i32Mul().i32Add().set(oc);
      f.block(() =>
        f.loop(() => {
          f.get(i).get(n).i32GeS().brIf(1);
          f.get(n).get(i).i32Sub().set(cnt);
          const lanes = base.map((_, k) => {
            const d = variant.inputs[k]!;
            const l = v.let(() => f.i32x4Const(0));
            for (let lane = 0; lane < 4; lane++) {
              f.get(cnt).i32(lane).i32GtS();
              f.if(() => {
                f.get(l).get(cursor[k]!);
                if (d === 'float32') f.f32Load().f32x4ReplaceLane(lane);
                else if (d === 'int32') f.i32Load().i32x4ReplaceLane(lane);
                else f.i32Load8U().i32x4ReplaceLane(lane);
                f.set(l);
                f.get(cursor[k]!).get(step[k]!).i32(ib[k]!).i32Mul().i32Add().set(cursor[k]!);
              });
            }
            return l;
          });
          const r = compute(lanes);
          for (let lane = 0; lane < 4; lane++) {
            f.get(cnt).i32(lane).i32GtS();
            f.if(() => {
              f.get(oc);
              if (variant.output === 'float32') f.get(r).f32x4ExtractLane(lane).f32Store();
              else if (variant.output === 'int32') f.get(r).i32x4ExtractLane(lane).i32Store();
              else f.get(r).i32x4ExtractLane(lane).i32Store8();
              f.get(oc).i32(ob).i32Add().set(oc);
            });
          }
          f.get(i).i32(4).i32Add().set(i);
          f.br(0);
        }),
      );
      // Next row.
      for (let k = 0; k < arity; k++) f.get(base[k]!).get(rowStep[k]!).i32(ib[k]!).i32Mul().i32Add().set(base[k]!);
      f.get(out).get(n).i32(ob).i32Mul().i32Add().set(out);
    });
  });
}
