/**
 * A parser for the JS expressions of the elementwise table (src/ir/elementwise.ts): numbers,
 * the operands `a` `b` `c`, the parameters `p0` `p1`, unary `-` `!`, arithmetic, comparisons,
 * `&&` `||`, `x | 0`, the ternary, and calls (`Math.exp(a)`, `erf(a)`). The wasm code generator
 * lowers the tree; anything outside this grammar is a parse error, and that op stays on the JS kernel.
 */

export type Expr =
  | { readonly kind: 'num'; readonly value: number }
  | { readonly kind: 'var'; readonly name: string }
  | { readonly kind: 'unary'; readonly op: '-' | '!'; readonly x: Expr }
  | { readonly kind: 'binary'; readonly op: string; readonly l: Expr; readonly r: Expr }
  | { readonly kind: 'cond'; readonly test: Expr; readonly then: Expr; readonly else: Expr }
  | { readonly kind: 'call'; readonly fn: string; readonly args: readonly Expr[] };

const TOKEN = /\s*(?:(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)|([A-Za-z_][\w.]*)|(===|!==|<=|>=|&&|\|\||[-+*/%<>!?:(),|]))/y;

/** Binary operators by precedence, loosest first (JS's order for the ones the table uses). */
const LEVELS: readonly (readonly string[])[] = [['||'], ['&&'], ['|'], ['===', '!=='], ['<', '>', '<=', '>='], ['+', '-'], ['*', '/', '%']];

export class ExprSyntaxError extends Error {}

export function parseExpr(src: string): Expr {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(src);
    if (!m) {
      if (src.slice(at).trim() === '') break;
      throw new ExprSyntaxError(`cannot read '${src.slice(at)}' in '${src}'`);
    }
    tokens.push(m[1] ?? m[2] ?? m[3]!);
  }
  let i = 0;
  const peek = () => tokens[i];
  const take = (t?: string) => {
    const tok = tokens[i++];
    if (tok === undefined || (t !== undefined && tok !== t)) throw new ExprSyntaxError(`expected ${t ?? 'a token'} in '${src}'`);
    return tok;
  };

  const primary = (): Expr => {
    const t = take();
    if (t === '(') {
      const e = expr();
      take(')');
      return e;
    }
    if (t === '-' || t === '!') return { kind: 'unary', op: t, x: primary() };
    if (/^[\d.]/.test(t)) return { kind: 'num', value: Number(t) };
    if (t === 'Infinity') return { kind: 'num', value: Infinity };
    if (/^[A-Za-z_]/.test(t)) {
      if (peek() === '(') {
        take('(');
        const args: Expr[] = [];
        if (peek() !== ')') {
          args.push(expr());
          while (peek() === ',') {
            take(',');
            args.push(expr());
          }
        }
        take(')');
        return { kind: 'call', fn: t, args };
      }
      return { kind: 'var', name: t };
    }
    throw new ExprSyntaxError(`unexpected '${t}' in '${src}'`);
  };

  const level = (k: number): Expr => {
    if (k === LEVELS.length) return primary();
    let l = level(k + 1);
    while (peek() !== undefined && LEVELS[k]!.includes(peek()!)) {
      const op = take();
      l = { kind: 'binary', op, l, r: level(k + 1) };
    }
    return l;
  };

  function expr(): Expr {
    const test = level(0);
    if (peek() !== '?') return test;
    take('?');
    const then = expr();
    take(':');
    return { kind: 'cond', test, then, else: expr() };
  }

  const e = expr();
  if (i !== tokens.length) throw new ExprSyntaxError(`trailing '${tokens.slice(i).join(' ')}' in '${src}'`);
  return e;
}
