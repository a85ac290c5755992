/**
 * A small WebAssembly binary emitter: enough of the format (one imported shared memory, functions,
 * exports, scalar and SIMD instructions) to generate the CPU kernels at run time, so the repo needs
 * no wasm toolchain and every kernel variant (relaxed or plain SIMD, one loop per elementwise op)
 * comes from TypeScript.
 */

export type ValType = 'i32' | 'i64' | 'f32' | 'f64' | 'v128';

const VALTYPE: Record<ValType, number> = { i32: 0x7f, i64: 0x7e, f32: 0x7d, f64: 0x7c, v128: 0x7b };

/** A growable byte array (a number[] with push per byte made generating the module slow). */
export class Bytes {
  private buf = new Uint8Array(256);
  length = 0;

  push(b: number): void {
    if (this.length === this.buf.length) this.grow(1);
    this.buf[this.length++] = b;
  }

  append(other: Bytes | Uint8Array | readonly number[]): void {
    const src = other instanceof Bytes ? other.view() : other;
    if (this.length + src.length > this.buf.length) this.grow(src.length);
    if (src instanceof Uint8Array) this.buf.set(src, this.length);
    else for (let i = 0; i < src.length; i++) this.buf[this.length + i] = src[i]!;
    this.length += src.length;
  }

  view(): Uint8Array<ArrayBuffer> {
    return this.buf.subarray(0, this.length);
  }

  private grow(need: number): void {
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + need));
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
  }
}

type Out = { push(b: number): void };

function uleb(out: Out, v: number): void {
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
}

function sleb(out: Out, v: number): void {
  // v is a 32-bit signed integer.
  v |= 0;
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return;
    }
    out.push(b | 0x80);
  }
}

function name(out: Out, s: string): void {
  const bytes = new TextEncoder().encode(s);
  uleb(out, bytes.length);
  for (const b of bytes) out.push(b);
}

const f32Scratch = new DataView(new ArrayBuffer(8));

/** A local variable of a function under construction. */
export interface Local {
  readonly index: number;
  readonly type: ValType;
}

/** Natural alignment (log2 bytes) of memory accesses by width. */
const ALIGN = { 1: 0, 2: 1, 4: 2, 8: 3, 16: 4 } as const;

/**
 * The body of one function: instructions append bytes; control helpers take callbacks so that
 * block nesting is structural. Branch depths count enclosing blocks from the innermost (0).
 */
export class Body {
  readonly code = new Bytes();
  private readonly locals: ValType[] = [];

  constructor(readonly params: readonly ValType[]) {}

  param(i: number): Local {
    return { index: i, type: this.params[i]! };
  }

  local(type: ValType): Local {
    this.locals.push(type);
    return { index: this.params.length + this.locals.length - 1, type };
  }

  /** The encoded body (locals and code). */
  encode(): Bytes {
    const out = new Bytes();
    // Group consecutive locals of one type.
    const groups: Array<[number, ValType]> = [];
    for (const t of this.locals) {
      const last = groups[groups.length - 1];
      if (last && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    uleb(out, groups.length);
    for (const [n, t] of groups) {
      uleb(out, n);
      out.push(VALTYPE[t]);
    }
    out.append(this.code);
    out.push(0x0b);
    return out;
  }

  private op(a: number, b?: number): this {
    this.code.push(a);
    if (b !== undefined) this.code.push(b);
    return this;
  }

  private simd(opcode: number): this {
    this.code.push(0xfd);
    uleb(this.code, opcode);
    return this;
  }

  private memarg(width: keyof typeof ALIGN, offset: number): this {
    uleb(this.code, ALIGN[width]);
    uleb(this.code, offset);
    return this;
  }

  // ---- variables and constants ----
  get(l: Local): this {
    this.code.push(0x20);
    uleb(this.code, l.index);
    return this;
  }
  set(l: Local): this {
    this.code.push(0x21);
    uleb(this.code, l.index);
    return this;
  }
  tee(l: Local): this {
    this.code.push(0x22);
    uleb(this.code, l.index);
    return this;
  }
  i32(v: number): this {
    this.code.push(0x41);
    sleb(this.code, v);
    return this;
  }
  f32(v: number): this {
    f32Scratch.setFloat32(0, v, true);
    this.code.push(0x43);
    for (let i = 0; i < 4; i++) this.code.push(f32Scratch.getUint8(i));
    return this;
  }
  f64(v: number): this {
    f32Scratch.setFloat64(0, v, true);
    this.code.push(0x44);
    for (let i = 0; i < 8; i++) this.code.push(f32Scratch.getUint8(i));
    return this;
  }
  /** v128.const from four f32 lanes. */
  f32x4Const(a: number, b = a, c = a, d = a): this {
    this.simd(0x0c);
    for (const v of [a, b, c, d]) {
      f32Scratch.setFloat32(0, v, true);
      for (let i = 0; i < 4; i++) this.code.push(f32Scratch.getUint8(i));
    }
    return this;
  }
  i32x4Const(a: number, b = a, c = a, d = a): this {
    this.simd(0x0c);
    for (const v of [a, b, c, d]) {
      f32Scratch.setInt32(0, v, true);
      for (let i = 0; i < 4; i++) this.code.push(f32Scratch.getUint8(i));
    }
    return this;
  }
  f64x2Const(a: number, b = a): this {
    this.simd(0x0c);
    for (const v of [a, b]) {
      f32Scratch.setFloat64(0, v, true);
      for (let i = 0; i < 8; i++) this.code.push(f32Scratch.getUint8(i));
    }
    return this;
  }

  // ---- control ----
  /** block ... end; `br(0)` inside leaves it. */
  block(body: () => void, result?: ValType): this {
    this.op(0x02, result ? VALTYPE[result] : 0x40);
    body();
    return this.op(0x0b);
  }
  /** loop ... end; `br(0)` inside jumps back to the start. */
  loop(body: () => void): this {
    this.op(0x03, 0x40);
    body();
    return this.op(0x0b);
  }
  /** if (pops an i32) ... else ... end. */
  if(then: () => void, otherwise?: () => void, result?: ValType): this {
    this.op(0x04, result ? VALTYPE[result] : 0x40);
    then();
    if (otherwise) {
      this.op(0x05);
      otherwise();
    }
    return this.op(0x0b);
  }
  br(depth: number): this {
    this.code.push(0x0c);
    uleb(this.code, depth);
    return this;
  }
  brIf(depth: number): this {
    this.code.push(0x0d);
    uleb(this.code, depth);
    return this;
  }
  ret(): this {
    return this.op(0x0f);
  }
  call(fn: number): this {
    this.code.push(0x10);
    uleb(this.code, fn);
    return this;
  }
  drop(): this {
    return this.op(0x1a);
  }
  select(): this {
    return this.op(0x1b);
  }

  /**
   * for (i = from; i < to; i += step) body — `from`/`to` are emitters pushing one i32 each; the
   * test is at the top, so an empty range runs nothing. Inside, depth 0 is the loop, 1 the exit.
   */
  forLt(i: Local, from: () => void, to: () => void, step: number, body: () => void): this {
    from();
    this.set(i);
    return this.block(() => {
      this.loop(() => {
        this.get(i);
        to();
        this.op(0x4e); // i32.ge_s
        this.brIf(1);
        body();
        this.get(i).i32(step).op(0x6a).set(i); // i += step
        this.br(0);
      });
    });
  }

  // ---- i32 ----
  i32Add(): this { return this.op(0x6a); }
  i32Sub(): this { return this.op(0x6b); }
  i32Mul(): this { return this.op(0x6c); }
  i32DivS(): this { return this.op(0x6d); }
  i32And(): this { return this.op(0x71); }
  i32Or(): this { return this.op(0x72); }
  i32Xor(): this { return this.op(0x73); }
  i32Shl(): this { return this.op(0x74); }
  i32ShrS(): this { return this.op(0x75); }
  i32ShrU(): this { return this.op(0x76); }
  i32Eqz(): this { return this.op(0x45); }
  i32Eq(): this { return this.op(0x46); }
  i32Ne(): this { return this.op(0x47); }
  i32LtS(): this { return this.op(0x48); }
  i32GtS(): this { return this.op(0x4a); }
  i32LeS(): this { return this.op(0x4c); }
  i32GeS(): this { return this.op(0x4e); }
  i32Load(offset = 0): this { return this.op(0x28).memarg(4, offset); }
  i32Load8U(offset = 0): this { return this.op(0x2d).memarg(1, offset); }
  i32Store(offset = 0): this { return this.op(0x36).memarg(4, offset); }
  i32Store8(offset = 0): this { return this.op(0x3a).memarg(1, offset); }

  // ---- f32 / f64 ----
  f32Load(offset = 0): this { return this.op(0x2a).memarg(4, offset); }
  f32Store(offset = 0): this { return this.op(0x38).memarg(4, offset); }
  f64Load(offset = 0): this { return this.op(0x2b).memarg(8, offset); }
  f64Store(offset = 0): this { return this.op(0x39).memarg(8, offset); }
  f32Add(): this { return this.op(0x92); }
  f32Sub(): this { return this.op(0x93); }
  f32Mul(): this { return this.op(0x94); }
  f32Div(): this { return this.op(0x95); }
  f32Max(): this { return this.op(0x97); }
  f32Min(): this { return this.op(0x96); }
  f32Ne(): this { return this.op(0x5c); }
  f32Gt(): this { return this.op(0x5e); }
  f32Lt(): this { return this.op(0x5d); }
  f64Add(): this { return this.op(0xa0); }
  f64Sub(): this { return this.op(0xa1); }
  f64Mul(): this { return this.op(0xa2); }
  f64Div(): this { return this.op(0xa3); }
  f64Sqrt(): this { return this.op(0x9f); }
  f64Gt(): this { return this.op(0x64); }
  f64Lt(): this { return this.op(0x63); }
  f64Ne(): this { return this.op(0x62); }
  f32DemoteF64(): this { return this.op(0xb6); }
  f64PromoteF32(): this { return this.op(0xbb); }
  f64ConvertI32S(): this { return this.op(0xb7); }
  /** i32.trunc_sat_f64_s: NaN -> 0, out of range -> saturated. */
  i32TruncSatF64S(): this { return this.op(0xfc, 0x02); }
  f32ConvertI32S(): this { return this.op(0xb2); }

  // ---- v128 memory ----
  v128Load(offset = 0): this { return this.simd(0x00).memarg(16, offset); }
  v128Store(offset = 0): this { return this.simd(0x0b).memarg(16, offset); }
  v128Load32Splat(offset = 0): this { return this.simd(0x09).memarg(4, offset); }
  v128Load64Zero(offset = 0): this { return this.simd(0x5d).memarg(8, offset); }
  v128Load32Zero(offset = 0): this { return this.simd(0x5c).memarg(4, offset); }
  v128Load32Lane(lane: number, offset = 0): this { return this.simd(0x56).memarg(4, offset).op(lane); }
  v128Store32Lane(lane: number, offset = 0): this { return this.simd(0x5a).memarg(4, offset).op(lane); }
  v128Load8Lane(lane: number, offset = 0): this { return this.simd(0x54).memarg(1, offset).op(lane); }
  v128Store8Lane(lane: number, offset = 0): this { return this.simd(0x58).memarg(1, offset).op(lane); }
  v128Store64Lane(lane: number, offset = 0): this { return this.simd(0x5b).memarg(8, offset).op(lane); }

  // ---- v128 lanes and bits ----
  i8x16Shuffle(lanes: readonly number[]): this {
    this.simd(0x0d);
    for (const l of lanes) this.code.push(l);
    return this;
  }
  f32x4Splat(): this { return this.simd(0x13); }
  i32x4Splat(): this { return this.simd(0x11); }
  f64x2Splat(): this { return this.simd(0x14); }
  f32x4ExtractLane(l: number): this { return this.simd(0x1f).op(l); }
  f32x4ReplaceLane(l: number): this { return this.simd(0x20).op(l); }
  i32x4ExtractLane(l: number): this { return this.simd(0x1b).op(l); }
  i32x4ReplaceLane(l: number): this { return this.simd(0x1c).op(l); }
  f64x2ExtractLane(l: number): this { return this.simd(0x21).op(l); }
  v128Not(): this { return this.simd(0x4d); }
  v128And(): this { return this.simd(0x4e); }
  v128AndNot(): this { return this.simd(0x4f); }
  v128Or(): this { return this.simd(0x50); }
  v128Xor(): this { return this.simd(0x51); }
  /** bitselect(a, b, mask): bits of a where mask is 1, of b elsewhere. */
  v128Bitselect(): this { return this.simd(0x52); }
  v128AnyTrue(): this { return this.simd(0x53); }

  // ---- i32x4 / narrowing ----
  i32x4Eq(): this { return this.simd(0x37); }
  i32x4Ne(): this { return this.simd(0x38); }
  i32x4LtS(): this { return this.simd(0x39); }
  i32x4GtS(): this { return this.simd(0x3b); }
  i32x4LeS(): this { return this.simd(0x3d); }
  i32x4GeS(): this { return this.simd(0x3f); }
  i32x4Abs(): this { return this.simd(0xa0); }
  i32x4Neg(): this { return this.simd(0xa1); }
  i32x4Shl(): this { return this.simd(0xab); }
  i32x4ShrS(): this { return this.simd(0xac); }
  i32x4ShrU(): this { return this.simd(0xad); }
  i32x4Add(): this { return this.simd(0xae); }
  i32x4Sub(): this { return this.simd(0xb1); }
  i32x4Mul(): this { return this.simd(0xb5); }
  i32x4MinS(): this { return this.simd(0xb6); }
  i32x4MaxS(): this { return this.simd(0xb8); }
  i32x4TruncSatF32x4S(): this { return this.simd(0xf8); }
  f32x4ConvertI32x4S(): this { return this.simd(0xfa); }
  i16x8NarrowI32x4S(): this { return this.simd(0x85); }
  i8x16NarrowI16x8S(): this { return this.simd(0x65); }
  i8x16NarrowI16x8U(): this { return this.simd(0x66); }
  i32x4ExtendLowI16x8U(): this { return this.simd(0xa9); }
  i16x8ExtendLowI8x16U(): this { return this.simd(0x89); }

  // ---- f32x4 ----
  f32x4Eq(): this { return this.simd(0x41); }
  f32x4Ne(): this { return this.simd(0x42); }
  f32x4Lt(): this { return this.simd(0x43); }
  f32x4Gt(): this { return this.simd(0x44); }
  f32x4Le(): this { return this.simd(0x45); }
  f32x4Ge(): this { return this.simd(0x46); }
  f32x4Abs(): this { return this.simd(0xe0); }
  f32x4Neg(): this { return this.simd(0xe1); }
  f32x4Sqrt(): this { return this.simd(0xe3); }
  f32x4Add(): this { return this.simd(0xe4); }
  f32x4Sub(): this { return this.simd(0xe5); }
  f32x4Mul(): this { return this.simd(0xe6); }
  f32x4Div(): this { return this.simd(0xe7); }
  f32x4Min(): this { return this.simd(0xe8); }
  f32x4Max(): this { return this.simd(0xe9); }
  f32x4Floor(): this { return this.simd(0x68); }
  f32x4Trunc(): this { return this.simd(0x69); }
  f32x4Nearest(): this { return this.simd(0x6a); }
  /** Relaxed SIMD: a * b + c, fused where the hardware has FMA. */
  f32x4RelaxedMadd(): this { return this.simd(0x105); }

  // ---- f64x2 ----
  f64x2Add(): this { return this.simd(0xf0); }
  f64x2Sub(): this { return this.simd(0xf1); }
  f64x2Mul(): this { return this.simd(0xf2); }
  f64x2Div(): this { return this.simd(0xf3); }
  f64x2Sqrt(): this { return this.simd(0xef); }
  f64x2PromoteLowF32x4(): this { return this.simd(0x5f); }
  f32x4DemoteF64x2Zero(): this { return this.simd(0x5e); }
}

export interface FuncDef {
  readonly name: string;
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
  readonly body: Body;
  /** Exported under `name` (internal helpers are not). */
  readonly exported: boolean;
}

/** A module importing one shared memory as env.memory. */
export class ModuleBuilder {
  private readonly funcs: FuncDef[] = [];
  private readonly index = new Map<string, number>();

  /**
   * Declares a function; `build` fills its body, given the parameters as locals (one per entry of
   * `params`). It may call functions declared earlier, or itself (`self`).
   */
  func<const P extends readonly ValType[]>(name: string, params: P, results: readonly ValType[], build: (b: Body, args: { readonly [K in keyof P]: Local }, self: number) => void, exported = true): number {
    if (this.index.has(name)) throw new Error(`wasm function ${name} declared twice`);
    const body = new Body(params);
    const idx = this.funcs.length;
    this.index.set(name, idx);
    this.funcs.push({ name, params, results, body, exported });
    // One local per parameter: the mapped tuple type of `params` (TypeScript cannot type a map over a tuple).
    const args = params.map((_, i) => body.param(i)) as unknown as { readonly [K in keyof P]: Local };
    build(body, args, idx);
    return idx;
  }

  has(name: string): boolean {
    return this.index.has(name);
  }

  indexOf(name: string): number {
    const i = this.index.get(name);
    if (i === undefined) throw new Error(`no wasm function ${name}`);
    return i;
  }

  encode(): Uint8Array<ArrayBuffer> {
    const out = new Bytes();
    out.append([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00]);
    const section = (id: number, content: Bytes) => {
      out.push(id);
      uleb(out, content.length);
      out.append(content);
    };
    // Types: one per distinct signature.
    const sigs: string[] = [];
    const sigOf = this.funcs.map((f) => {
      const key = `${f.params.join(',')}>${f.results.join(',')}`;
      let i = sigs.indexOf(key);
      if (i < 0) {
        sigs.push(key);
        i = sigs.length - 1;
      }
      return i;
    });
    {
      const c = new Bytes();
      uleb(c, sigs.length);
      for (const key of sigs) {
        const [ps, rs] = key.split('>') as [string, string];
        const params = ps ? (ps.split(',') as ValType[]) : [];
        const results = rs ? (rs.split(',') as ValType[]) : [];
        c.push(0x60);
        uleb(c, params.length);
        for (const p of params) c.push(VALTYPE[p]);
        uleb(c, results.length);
        for (const r of results) c.push(VALTYPE[r]);
      }
      section(1, c);
    }
    {
      // import env.memory: shared, min 1 page, max 65536 pages (4 GiB).
      const c = new Bytes();
      uleb(c, 1);
      name(c, 'env');
      name(c, 'memory');
      c.push(0x02);
      c.push(0x03);
      uleb(c, 1);
      uleb(c, 65536);
      section(2, c);
    }
    {
      const c = new Bytes();
      uleb(c, this.funcs.length);
      for (const s of sigOf) uleb(c, s);
      section(3, c);
    }
    {
      const c = new Bytes();
      const exported = this.funcs.map((f, i) => [f, i] as const).filter(([f]) => f.exported);
      uleb(c, exported.length);
      for (const [f, i] of exported) {
        name(c, f.name);
        c.push(0x00);
        uleb(c, i);
      }
      section(7, c);
    }
    {
      const c = new Bytes();
      uleb(c, this.funcs.length);
      for (const f of this.funcs) {
        const body = f.body.encode();
        uleb(c, body.length);
        c.append(body);
      }
      section(10, c);
    }
    return out.view().slice();
  }
}
