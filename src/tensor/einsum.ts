/**
 * einsum (torch.einsum) from views, sums and matmul: each operand's repeated labels become a
 * diagonal (the dims merged and sliced with a stride), labels nothing else needs are summed, and
 * the operands are contracted left to right, each pair as a permute / reshape / batched matmul,
 * so the work runs on the matmul kernels and every backend, Fusion and Autodiff get it for free.
 */
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import { isFloat } from '../ir/dtype.js';
import { show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { checkTensor, Tensor } from './tensor.js';

type F<B extends Backend> = Tensor<B, 'float'>;

/** A subscript: a letter, or `.k` for the k-th dim an ellipsis covers (aligned right across operands, as broadcasting). */
type Label = string;
const ELLIPSIS = '...';

interface Equation {
  /** Per operand, its subscripts in order (ELLIPSIS where it has one). */
  readonly inputs: ReadonlyArray<readonly string[]>;
  /** The output's subscripts, or undefined for the implicit output. */
  readonly output: readonly string[] | undefined;
  /** Where the output starts in the equation (for messages). */
  readonly outputAt: number;
}

const isLetter = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');

/** Reads the subscripts of `text` (operands split at ',' when `many`), positions counted from `offset` in `eq`. */
function scanTerms(eq: string, text: string, offset: number, many: boolean): string[][] {
  const terms: string[][] = [[]];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    const at = offset + i;
    const term = terms[terms.length - 1]!;
    if (c === ' ') continue;
    if (c === ',' && many) {
      terms.push([]);
    } else if (c === '.') {
      if (text.slice(i, i + 3) !== ELLIPSIS) throw new ArgumentError(`'.' at position ${at} of '${eq}' is not part of an ellipsis (...)`, { op: 'einsum', hint: 'write ... (three dots) for broadcast dims' });
      if (term.includes(ELLIPSIS)) throw new ArgumentError(`a second ellipsis at position ${at} of '${eq}'`, { op: 'einsum', hint: 'each operand and the output take at most one ...' });
      term.push(ELLIPSIS);
      i += 2;
    } else if (isLetter(c)) {
      term.push(c);
    } else {
      throw new ArgumentError(`invalid character '${c}' at position ${at} of '${eq}'`, { op: 'einsum', hint: "subscripts are letters a-z and A-Z, operands are separated by ',', the output follows '->'" });
    }
  }
  return terms;
}

function parse(eq: string): Equation {
  const arrow = eq.indexOf('->');
  const lhs = arrow < 0 ? eq : eq.slice(0, arrow);
  const inputs = scanTerms(eq, lhs, 0, true);
  if (arrow < 0) return { inputs, output: undefined, outputAt: eq.length };
  const rhs = eq.slice(arrow + 2);
  const comma = rhs.indexOf(',');
  if (comma >= 0) throw new ArgumentError(`',' at position ${arrow + 2 + comma} of '${eq}': the output is one term`, { op: 'einsum' });
  return { inputs, output: scanTerms(eq, rhs, arrow + 2, false)[0]!, outputAt: arrow + 2 };
}

/** ASCII order, uppercase first: torch's order for the implicit output. */
const byCode = (a: string, b: string): number => a.charCodeAt(0) - b.charCodeAt(0);

/** The operands' labels (ellipses expanded) and the output's, checked against the ranks and sizes. */
function labelsOf<B extends Backend>(eq: string, parsed: Equation, xs: ReadonlyArray<F<B>>): { inputs: Label[][]; output: Label[] } {
  const op = 'einsum';
  let ellDims = 0;
  parsed.inputs.forEach((term, i) => {
    const letters = term.filter((s) => s !== ELLIPSIS).length;
    const rank = xs[i]!.rank;
    const ell = term.includes(ELLIPSIS);
    if (ell ? letters > rank : letters !== rank) {
      throw new ShapeError(`operand ${i} has rank ${rank} but its subscripts '${term.join('')}' in '${eq}' name ${letters} dims${ell ? ' besides the ellipsis' : ''}`, { op, shapes: xs.map((x) => x.shape), hint: ell ? 'the ellipsis covers the dims the letters leave' : 'one letter per dim, or ... for the rest' });
    }
    if (ell) ellDims = Math.max(ellDims, rank - letters);
  });
  const inputs = parsed.inputs.map((term, i) => {
    const covered = xs[i]!.rank - term.filter((s) => s !== ELLIPSIS).length;
    return term.flatMap((s) => (s === ELLIPSIS ? Array.from({ length: covered }, (_, j) => `.${ellDims - covered + j}`) : [s]));
  });
  const ellipsis = Array.from({ length: ellDims }, (_, j) => `.${j}`);
  const counts = new Map<string, number>();
  for (const term of inputs) for (const l of term) counts.set(l, (counts.get(l) ?? 0) + 1);
  let output: Label[];
  if (parsed.output === undefined) {
    // torch: the ellipsis dims, then the letters that appear exactly once, in ASCII order.
    output = [...ellipsis, ...[...counts].filter(([l, n]) => n === 1 && !l.startsWith('.')).map(([l]) => l).sort(byCode)];
  } else {
    output = [];
    for (const s of parsed.output) {
      if (s === ELLIPSIS) {
        output.push(...ellipsis);
        continue;
      }
      if (!counts.has(s)) throw new ArgumentError(`output subscript '${s}' of '${eq}' appears in no operand`, { op, hint: 'every output letter must label a dim of some operand' });
      if (output.includes(s)) throw new ArgumentError(`output subscript '${s}' appears twice in '${eq}'`, { op, hint: 'use a repeated letter in an operand for a diagonal; the output names each dim once' });
      output.push(s);
    }
  }
  // Sizes: a label's dims must agree; across operands a size of 1 broadcasts (torch). Within one operand (a diagonal) they must be equal.
  const sizes = new Map<string, { size: number; where: string }>();
  inputs.forEach((term, i) => {
    const shape = xs[i]!.shape;
    const own = new Map<string, number>();
    term.forEach((l, d) => {
      const n = shape[d]!;
      const name = l.startsWith('.') ? `the ellipsis dim ${d}` : `'${l}'`;
      const mine = own.get(l);
      if (mine !== undefined && mine !== n) throw new ShapeError(`subscript ${name} is repeated in operand ${i} of '${eq}' with sizes ${mine} and ${n}`, { op, shapes: [shape], hint: 'a diagonal needs equal sizes' });
      own.set(l, n);
      const seen = sizes.get(l);
      if (n !== 1 && seen !== undefined && seen.size !== 1 && seen.size !== n) {
        throw new ShapeError(`subscript ${name} is ${seen.size} in ${seen.where} but ${n} in operand ${i} (dim ${d}) of '${eq}'`, { op, shapes: xs.map((x) => x.shape), hint: 'sizes of one subscript must be equal or 1' });
      }
      if (seen === undefined || seen.size === 1) sizes.set(l, { size: n, where: `operand ${i} (dim ${d})` });
    });
  });
  return { inputs, output };
}

/** An operand and the labels of its dims. */
interface Labelled<B extends Backend> {
  t: F<B>;
  labels: Label[];
}

/** Takes the diagonal of every label repeated in `x`: the dims moved last, merged, and read with stride 1 + n + n^2 + ... */
function diagonals<B extends Backend>(x: Labelled<B>): Labelled<B> {
  let { t, labels } = x;
  for (;;) {
    const l = labels.find((s, i) => labels.indexOf(s) !== i);
    if (l === undefined) return { t, labels };
    const at = labels.flatMap((s, i) => (s === l ? [i] : []));
    const rest = labels.flatMap((s, i) => (s === l ? [] : [i]));
    const n = t.shape[at[0]!]!;
    const shape = t.shape;
    const merged = t.permute([...rest, ...at]).reshape([...rest.map((i) => shape[i]!), n ** at.length]);
    let step = 0;
    for (let k = 0; k < at.length; k++) step += n ** k;
    t = merged.slice([...rest.map(() => null), { start: 0, end: n ** at.length, step: Math.max(step, 1) }]);
    labels = [...rest.map((i) => labels[i]!), l];
  }
}

/** Sums the dims of `x` whose labels `needed` rejects. */
function sumUnneeded<B extends Backend>(x: Labelled<B>, needed: (l: Label) => boolean): Labelled<B> {
  const drop = x.labels.flatMap((l, i) => (needed(l) ? [] : [i]));
  if (drop.length === 0) return x;
  return { t: x.t.sum(drop), labels: x.labels.filter((l) => needed(l)) };
}

const product = (xs: readonly number[]): number => xs.reduce((a, b) => a * b, 1);

/** a * b summed over their shared labels that `keep` lacks, as one batched matmul [batch, m, k] x [batch, k, n]. */
function contract<B extends Backend>(a: Labelled<B>, b: Labelled<B>, keep: ReadonlySet<Label>): Labelled<B> {
  a = sumUnneeded(a, (l) => keep.has(l) || b.labels.includes(l));
  b = sumUnneeded(b, (l) => keep.has(l) || a.labels.includes(l));
  const shared = a.labels.filter((l) => b.labels.includes(l));
  const batch = shared.filter((l) => keep.has(l));
  const summed = shared.filter((l) => !keep.has(l));
  // A summed label of size 1 on one side only: sum the other side first (x * sum(y) = sum(x * y) for constant x).
  for (const [self, other] of [[a, b], [b, a]] as const) {
    const lone = summed.filter((l) => self.t.shape[self.labels.indexOf(l)] !== 1 && other.t.shape[other.labels.indexOf(l)] === 1);
    if (lone.length > 0) self.t = self.t.sum(lone.map((l) => self.labels.indexOf(l)), true);
  }
  const ms = a.labels.filter((l) => !shared.includes(l));
  const ns = b.labels.filter((l) => !shared.includes(l));
  const size = (x: Labelled<B>, l: Label): number => x.t.shape[x.labels.indexOf(l)]!;
  const idx = (x: Labelled<B>, ls: readonly Label[]): number[] => ls.map((l) => x.labels.indexOf(l));
  const k = product(summed.map((l) => size(a, l)));
  const am = a.t.permute(idx(a, [...batch, ...ms, ...summed])).reshape([...batch.map((l) => size(a, l)), product(ms.map((l) => size(a, l))), k]);
  const bm = b.t.permute(idx(b, [...batch, ...summed, ...ns])).reshape([...batch.map((l) => size(b, l)), k, product(ns.map((l) => size(b, l)))]);
  const c = am.matmul(bm);
  const outBatch = c.shape.slice(0, batch.length);
  return { t: c.reshape([...outBatch, ...ms.map((l) => size(a, l)), ...ns.map((l) => size(b, l))]), labels: [...batch, ...ms, ...ns] };
}

/**
 * torch.einsum: `einsum('ij,jk->ik', a, b)` (or the operands as one list). Letters name dims; a
 * letter repeated in one operand takes its diagonal; letters missing from the output are summed;
 * `...` stands for broadcast dims. Without '->' the output is the ellipsis dims and then the
 * letters that appear once, in ASCII order. Float operands of one dtype.
 */
export function einsum<B extends Backend>(equation: string, operands: ReadonlyArray<F<B>>): F<B>;
export function einsum<B extends Backend>(equation: string, ...operands: Array<F<B>>): F<B>;
export function einsum<B extends Backend>(equation: string, ...rest: Array<F<B> | ReadonlyArray<F<B>>>): F<B> {
  const op = 'einsum';
  if (typeof equation !== 'string') throw new ArgumentError(`the equation must be a string, got ${show(equation)}`, { op, hint: "einsum('ij,jk->ik', a, b)" });
  // Untyped callers: one list of tensors, or the tensors themselves; anything else is refused by name.
  const first = rest[0];
  const nested = rest.length === 1 && first !== undefined && !(first instanceof Tensor);
  if (nested && !Array.isArray(first)) throw new ArgumentError(`the operands must be tensors or one list of tensors, got ${show(first)}`, { op, hint: "einsum('ij,jk', a, b) or einsum('ij,jk', [a, b])" });
  const given: ReadonlyArray<F<B> | ReadonlyArray<F<B>>> = nested && first !== undefined && !(first instanceof Tensor) ? first : rest;
  const xs: Array<F<B>> = [];
  for (const [i, x] of given.entries()) {
    if (x instanceof Tensor) xs.push(x);
    else checkTensor(op, `operand ${i}`, x);
  }
  if (xs.length === 0) throw new ArgumentError(`'${equation}' needs at least one operand`, { op, hint: "einsum('ii', x) or einsum('ij,jk', a, b)" });
  const parsed = parse(equation);
  if (parsed.inputs.length !== xs.length) {
    throw new ArgumentError(`'${equation}' names ${parsed.inputs.length} operand${parsed.inputs.length === 1 ? '' : 's'} but ${xs.length} tensor${xs.length === 1 ? ' was' : 's were'} given`, { op });
  }
  const dtype = xs[0]!.dtype;
  for (const x of xs) {
    x.live(op);
    if (!isFloat(x.dtype) || x.dtype !== dtype) throw new DTypeError(`takes float tensors of one dtype, got ${xs.map((t) => t.dtype).join(', ')}`, { op, dtypes: xs.map((t) => t.dtype), hint: 'cast the operands with .cast("float32")' });
  }
  const { inputs, output } = labelsOf(equation, parsed, xs);
  return tidy(() => {
    const outSet = new Set(output);
    const ops = xs.map((t, i) => diagonals({ t, labels: inputs[i]! }));
    // Labels of one operand only, and not in the output, are summed before any product.
    const elsewhere = (i: number, l: Label): boolean => outSet.has(l) || ops.some((o, j) => j !== i && o.labels.includes(l));
    let acc = sumUnneeded(ops[0]!, (l) => elsewhere(0, l));
    for (let i = 1; i < ops.length; i++) {
      const keep = new Set(output);
      for (const o of ops.slice(i + 1)) for (const l of o.labels) keep.add(l);
      acc = contract(acc, ops[i]!, keep);
    }
    acc = sumUnneeded(acc, (l) => outSet.has(l));
    const order = output.map((l) => acc.labels.indexOf(l));
    // A view of the input at least: the result must be a tensor of its own for tidy and dispose.
    return order.every((d, i) => d === i) ? acc.t.reshape(acc.t.shape) : acc.t.permute(order);
  }, xs[0]!.backend.runtime);
}
