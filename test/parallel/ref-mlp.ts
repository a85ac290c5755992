/**
 * An independent float64 reference for the data-parallel tests: an MLP (Linear, ReLU between
 * layers) with mean cross-entropy, its gradients by hand, and SGD (momentum, as torch.optim.SGD)
 * and Adam (as torch.optim.Adam) updates, with optional clipping by global norm.
 */
export interface RefLayer {
  w: Float64Array; // [in, out]
  b: Float64Array; // [out]
  inF: number;
  outF: number;
}

export interface RefOptimizer {
  kind: 'sgd' | 'adam';
  lr: number;
  momentum?: number;
  betas?: [number, number];
  eps?: number;
  clipNorm?: number;
}

export function refModel(record: { params: Record<string, { shape: readonly number[]; data: Float32Array }> }, sizes: readonly number[]): RefLayer[] {
  const layers: RefLayer[] = [];
  for (let i = 0; i + 1 < sizes.length; i++) {
    const idx = 2 * i; // Linear, ReLU, Linear, ...: the linears sit at 0, 2, 4 in the Sequential
    const w = record.params[`layers.${idx}.weight`]!;
    const b = record.params[`layers.${idx}.bias`]!;
    layers.push({ w: Float64Array.from(w.data), b: Float64Array.from(b.data), inF: sizes[i]!, outF: sizes[i + 1]! });
  }
  return layers;
}

/** Gradients of the mean cross-entropy over the batch, per layer. */
export function refGrads(layers: readonly RefLayer[], x: Float32Array, y: Int32Array, n: number): { dw: Float64Array[]; db: Float64Array[]; loss: number } {
  const acts: Float64Array[] = [Float64Array.from(x)];
  const pre: Float64Array[] = [];
  for (let l = 0; l < layers.length; l++) {
    const { w, b, inF, outF } = layers[l]!;
    const h = acts[l]!;
    const z = new Float64Array(n * outF);
    for (let r = 0; r < n; r++) {
      for (let o = 0; o < outF; o++) {
        let s = b[o]!;
        for (let i = 0; i < inF; i++) s += h[r * inF + i]! * w[i * outF + o]!;
        z[r * outF + o] = s;
      }
    }
    pre.push(z);
    acts.push(l + 1 < layers.length ? z.map((v) => (v > 0 ? v : 0)) : z);
  }
  const last = layers[layers.length - 1]!;
  const logits = pre[pre.length - 1]!;
  let dz = new Float64Array(n * last.outF);
  let loss = 0;
  for (let r = 0; r < n; r++) {
    let m = -Infinity;
    for (let o = 0; o < last.outF; o++) m = Math.max(m, logits[r * last.outF + o]!);
    let s = 0;
    for (let o = 0; o < last.outF; o++) s += Math.exp(logits[r * last.outF + o]! - m);
    loss += (Math.log(s) + m - logits[r * last.outF + y[r]!]!) / n;
    for (let o = 0; o < last.outF; o++) dz[r * last.outF + o] = (Math.exp(logits[r * last.outF + o]! - m) / s - (o === y[r] ? 1 : 0)) / n;
  }
  const dw: Float64Array[] = new Array(layers.length);
  const db: Float64Array[] = new Array(layers.length);
  for (let l = layers.length - 1; l >= 0; l--) {
    const { w, inF, outF } = layers[l]!;
    const h = acts[l]!;
    const gw = new Float64Array(inF * outF);
    const gb = new Float64Array(outF);
    for (let r = 0; r < n; r++) {
      for (let o = 0; o < outF; o++) {
        const d = dz[r * outF + o]!;
        gb[o]! += d;
        for (let i = 0; i < inF; i++) gw[i * outF + o]! += h[r * inF + i]! * d;
      }
    }
    dw[l] = gw;
    db[l] = gb;
    if (l > 0) {
      const prev = pre[l - 1]!;
      const dh = new Float64Array(n * inF);
      for (let r = 0; r < n; r++) {
        for (let i = 0; i < inF; i++) {
          let s = 0;
          for (let o = 0; o < outF; o++) s += dz[r * outF + o]! * w[i * outF + o]!;
          dh[r * inF + i] = prev[r * inF + i]! > 0 ? s : 0;
        }
      }
      dz = dh;
    }
  }
  return { dw, db, loss };
}

/** A float64 optimizer over the layers' tensors, keeping its state between steps. */
export class RefTrainer {
  private readonly state = new Map<Float64Array, { buf?: Float64Array; m?: Float64Array; v?: Float64Array; t: number }>();
  constructor(readonly layers: RefLayer[], readonly opt: RefOptimizer) {}

  step(x: Float32Array, y: Int32Array, n: number): number {
    const { dw, db, loss } = refGrads(this.layers, x, y, n);
    const pairs: Array<[Float64Array, Float64Array]> = [];
    this.layers.forEach((L, l) => pairs.push([L.w, dw[l]!], [L.b, db[l]!]));
    if (this.opt.clipNorm !== undefined) {
      let sq = 0;
      for (const [, g] of pairs) for (const v of g) sq += v * v;
      const scale = Math.min(1, this.opt.clipNorm / (Math.sqrt(sq) + 1e-6));
      for (const [, g] of pairs) for (let i = 0; i < g.length; i++) g[i]! *= scale;
    }
    for (const [p, g] of pairs) this.update(p, g);
    return loss;
  }

  private update(p: Float64Array, g: Float64Array): void {
    let s = this.state.get(p);
    if (!s) this.state.set(p, (s = { t: 0 }));
    s.t++;
    const { lr } = this.opt;
    if (this.opt.kind === 'sgd') {
      const mom = this.opt.momentum ?? 0;
      if (mom === 0) {
        for (let i = 0; i < p.length; i++) p[i]! -= lr * g[i]!;
        return;
      }
      const buf = (s.buf ??= Float64Array.from(g));
      if (s.t > 1) for (let i = 0; i < p.length; i++) buf[i] = mom * buf[i]! + g[i]!;
      for (let i = 0; i < p.length; i++) p[i]! -= lr * buf[i]!;
      return;
    }
    const [b1, b2] = this.opt.betas ?? [0.9, 0.999];
    const eps = this.opt.eps ?? 1e-8;
    const m = (s.m ??= new Float64Array(p.length));
    const v = (s.v ??= new Float64Array(p.length));
    for (let i = 0; i < p.length; i++) {
      m[i] = b1 * m[i]! + (1 - b1) * g[i]!;
      v[i] = b2 * v[i]! + (1 - b2) * g[i]! * g[i]!;
      p[i]! -= (lr * (m[i]! / (1 - b1 ** s.t))) / (Math.sqrt(v[i]! / (1 - b2 ** s.t)) + eps);
    }
  }
}

/** Largest |a - b| / (atol + rtol |b|) over every parameter: <= 1 passes. */
export function worstRatio(actual: { params: Record<string, { data: Float32Array }> }, layers: readonly RefLayer[], atol: number, rtol: number): { ratio: number; where: string } {
  let worst = { ratio: 0, where: '' };
  layers.forEach((L, l) => {
    for (const [name, ref] of [[`layers.${2 * l}.weight`, L.w], [`layers.${2 * l}.bias`, L.b]] as const) {
      const got = actual.params[name]!.data;
      for (let i = 0; i < ref.length; i++) {
        const r = Math.abs(got[i]! - ref[i]!) / (atol + rtol * Math.abs(ref[i]!));
        if (!(r <= worst.ratio)) worst = { ratio: Number.isNaN(r) ? Infinity : r, where: `${name}[${i}]: ${got[i]} vs ${ref[i]}` };
      }
    }
  });
  return worst;
}
