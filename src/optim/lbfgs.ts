/**
 * L-BFGS as torch.optim.LBFGS (1.13): several closure evaluations per step, an optional strong
 * Wolfe line search (torch's `_strong_wolfe` and `_cubic_interpolate`, ported line for line).
 * torch flattens every parameter into one vector; here a "vector" is one tensor per trainable
 * parameter and a dot product is the sum of the per-parameter sums, on the parameters' device.
 * The decisions (curvature test, step length, stopping) need scalars on the host: they are read
 * in batches (Promise.all), 2 device reads per iteration without a line search, 1 per line-search
 * evaluation plus 2 per iteration with one.
 */
import { isGradEnabled, noGrad } from '../autodiff/grad-mode.js';
import { isAutodiff, type AutodiffBackend } from '../autodiff/types.js';
import type { Backend } from '../backends/backend.js';
import { ArgumentError, DTypeError, ShapeError } from '../errors.js';
import { sameShape } from '../ir/shape.js';
import { checkKeys, field, show } from '../ir/validate.js';
import { keep, tidy } from '../memory/tidy.js';
import type { Module } from '../nn/module.js';
import type { Param, ParamId } from '../nn/param.js';
import { ownedFloat32, type TensorRecord } from '../nn/record.js';
import { fromData, fullLike } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import { checkSetting, type OptimizerRecord } from './optimizer.js';
import { ParamGrads } from './param-grads.js';

export interface LBFGSOptions {
  /** Step length: the line search's first trial, or the fixed step without one. Default 1. */
  lr?: number;
  /** Iterations per step() (torch's max_iter). Default 20. */
  maxIter?: number;
  /** Closure evaluations per step() (torch's max_eval). Default floor(maxIter * 5 / 4). */
  maxEval?: number;
  /** Stop when the largest |gradient| is at most this (torch's tolerance_grad). Default 1e-7. */
  toleranceGrad?: number;
  /** Stop when the loss or the step changes less than this (torch's tolerance_change). Default 1e-9. */
  toleranceChange?: number;
  /** Curvature pairs kept (torch's history_size). Default 100. */
  historySize?: number;
  /** 'strongWolfe' (torch's 'strong_wolfe') or undefined: a fixed step of lr. */
  lineSearch?: 'strongWolfe';
}

/**
 * What the closure returns: the loss (a one-element float tensor whose graph reaches the
 * parameters; step() runs its backward), or the loss with its gradients already taken (an AMP
 * scaler, gradients from elsewhere). step() disposes either once it has read them.
 */
export type LBFGSClosureResult<B extends Backend> = Tensor<B, 'float'> | { loss: Tensor<B, 'float'>; grads: ParamGrads<B> };

/** The state beside the tensors: numbers torch keeps as Python floats or 0-d tensors. */
export interface LBFGSRecord extends OptimizerRecord {
  readonly scalars: {
    readonly nIter: number;
    readonly funcEvals: number;
    readonly t: number;
    readonly hDiag: number;
    readonly prevLoss: number;
    readonly ro: readonly number[];
  };
}

type Vec<B extends Backend> = Array<Tensor<B, 'float'>>;

const KEYS = ['lr', 'maxIter', 'maxEval', 'toleranceGrad', 'toleranceChange', 'historySize', 'lineSearch'] as const;
const OP = 'LBFGS';

/** float32 rounding of a scalar times a float32 value, as torch's scalar-tensor arithmetic. */
const f32 = Math.fround;

function isAutodiffLoss<B extends Backend>(t: Tensor<B, 'float'>): t is Tensor<B, 'float'> & Tensor<AutodiffBackend, 'float'> {
  return isAutodiff(t.backend);
}

export class LBFGS<B extends Backend = Backend> {
  readonly kind = 'lbfgs';
  readonly maxIter: number;
  readonly maxEval: number;
  readonly toleranceGrad: number;
  readonly toleranceChange: number;
  readonly historySize: number;
  readonly lineSearch: 'strongWolfe' | undefined;
  private rate: number;

  // torch's state (kept across steps): the last direction and step, the curvature pairs.
  private nIter = 0;
  private funcEvals = 0;
  private d: Vec<B> | undefined;
  private t = 0;
  private oldDirs: Array<Vec<B>> = [];
  private oldStps: Array<Vec<B>> = [];
  private ro: number[] = [];
  private hDiag = 1;
  private prevFlatGrad: Vec<B> | undefined;
  private prevLoss = 0;
  /** The ParamIds the state belongs to, in order (state from another module is refused). */
  private ids: ParamId[] | undefined;
  /** A step is running (its reads are awaited): another would interleave with its state. */
  private busy = false;

  constructor(options: LBFGSOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new ArgumentError(`options must be an object, got ${show(options)}`, { op: OP });
    checkKeys(OP, options, KEYS);
    const int = (name: string, v: unknown, min: number): number => {
      if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) throw new ArgumentError(`${name} must be an integer >= ${min}, got ${show(v)}`, { op: OP });
      return v;
    };
    this.rate = checkSetting(OP, 'lr', options.lr ?? 1, (v) => v > 0, 'a finite number > 0');
    this.maxIter = int('maxIter', options.maxIter ?? 20, 1);
    this.maxEval = int('maxEval', options.maxEval ?? Math.floor((this.maxIter * 5) / 4), 1);
    this.toleranceGrad = checkSetting(OP, 'toleranceGrad', options.toleranceGrad ?? 1e-7, (v) => v >= 0, 'a finite number >= 0');
    this.toleranceChange = checkSetting(OP, 'toleranceChange', options.toleranceChange ?? 1e-9, (v) => v >= 0, 'a finite number >= 0');
    this.historySize = int('historySize', options.historySize ?? 100, 1);
    const ls: unknown = options.lineSearch;
    if (ls !== undefined && ls !== 'strongWolfe') {
      throw new ArgumentError(`lineSearch must be 'strongWolfe' or left out, got ${show(ls)}`, { op: OP, hint: ls === 'strong_wolfe' ? "torch's 'strong_wolfe' is 'strongWolfe' here" : 'leave it out for a fixed step of lr' });
    }
    this.lineSearch = ls;
  }

  get lr(): number {
    return this.rate;
  }

  set lr(v: number) {
    this.rate = checkSetting(OP, 'lr', v, (x) => x > 0, 'a finite number > 0');
  }

  /** Closure evaluations over all steps (torch's state['func_evals']). */
  get evaluations(): number {
    return this.funcEvals;
  }

  /** Iterations over all steps (torch's state['n_iter']). */
  get iterations(): number {
    return this.nIter;
  }

  /**
   * One torch LBFGS step: up to maxIter iterations, each evaluating `closure` (which recomputes
   * the loss at the module's current parameters) once, or several times under the line search.
   * Resolves to the loss of the first evaluation (torch's return value), as a number.
   */
  async step(module: Module<B>, closure: () => LBFGSClosureResult<B>): Promise<number> {
    const m: unknown = module;
    if (typeof field(m, 'params') !== 'function') throw new ArgumentError(`the first argument must be the module to step, got ${show(m)}`, { op: 'LBFGS.step', hint: 'await opt.step(model, () => loss(model))' });
    if (typeof closure !== 'function') {
      throw new ArgumentError(`the second argument must be a closure that recomputes the loss, got ${show(closure)}`, { op: 'LBFGS.step', hint: 'L-BFGS evaluates the loss several times per step: await opt.step(model, () => nn.mseLoss(model.forward(x), y))' });
    }
    if (this.busy) throw new ArgumentError('a step of this optimizer is still running', { op: 'LBFGS.step', hint: 'await each step before the next: its state moves through the whole step' });
    const params = module.params().filter((p) => p.trainable);
    if (params.length === 0) throw new ArgumentError('the module has no trainable parameters', { op: 'LBFGS.step' });
    const wide = params.find((p) => p.value.dtype !== 'float32');
    // Its host arithmetic and saved state are float32's (and mixed dtypes would not add up in its dot products).
    if (wide) throw new DTypeError(`parameter ${wide.id} is ${wide.value.dtype}; LBFGS steps float32 parameters`, { op: 'LBFGS.step', dtypes: [wide.value.dtype], hint: 'keep float32 master weights (see README "Mixed precision")' });
    const device = params[0]!.value.device.key;
    const other = params.find((p) => p.value.device.key !== device);
    // torch: "all parameters have to be on a single device"; the dot products are summed on it.
    if (other) throw new ArgumentError(`the parameters are on several devices (${device}, ${other.value.device.key})`, { op: 'LBFGS.step', hint: 'L-BFGS sums its dot products over all parameters on one device' });
    const ids = params.map((p) => p.id);
    if (this.ids && (this.ids.length !== ids.length || this.ids.some((id, i) => id !== ids[i]))) {
      throw new ArgumentError("the state belongs to another module's parameters", { op: 'LBFGS.step', hint: 'one LBFGS per module, or opt.clear() first' });
    }
    this.ids = ids;
    const runtime = params[0]!.value.backend.runtime;
    const run = <T>(fn: () => T): T => tidy(() => noGrad(fn, runtime), runtime);
    const hold = (v: Vec<B>): Vec<B> => v.map((x) => keep(x, runtime));
    const free = (v: Vec<B> | undefined): void => v?.forEach((x) => x.dispose());
    const dot = (a: Vec<B>, b: Vec<B>): Tensor<B, 'float'> => a.map((x, i) => x.mul(b[i]!).sum()).reduce((s, x) => s.add(x));
    const maxAbs = (a: Vec<B>): Tensor<B, 'float'> => a.map((x) => x.abs().max()).reduce((s, x) => s.maximum(x));
    /** Reads the scalars `fn` makes, together, and frees them. */
    const read = async (fn: () => Array<Tensor<B, 'float'>>): Promise<number[]> => {
      const ts = run(fn).map((x) => keep(x, runtime));
      try {
        return await Promise.all(ts.map((x) => x.item()));
      } finally {
        ts.forEach((x) => x.dispose());
      }
    };

    /** Evaluates the closure at the current parameters: the loss tensor and one gradient per parameter (zeros where none). */
    const evaluate = (): { loss: Tensor<B, 'float'>; grads: Vec<B> } => {
      if (!isGradEnabled(runtime)) throw new ArgumentError('step() was called with gradients disabled', { op: 'LBFGS.step', hint: 'the closure needs a graph to the parameters: call step() outside noGrad()' });
      const out = tidy(() => {
        const r = closure();
        let loss: Tensor<B, 'float'>;
        let pg: ParamGrads<B>;
        if (r instanceof Tensor) {
          loss = checkLoss(r);
          if (!isAutodiffLoss(loss) || !loss.requiresGrad) {
            throw new ArgumentError('the loss the closure returned has no gradient path to the parameters', { op: 'LBFGS.step', hint: "compute it from the module's parameters on an Autodiff backend (not under noGrad, not detached), or return { loss, grads }" });
          }
          const grads = loss.backward();
          pg = ParamGrads.from(grads, module);
          grads.dispose();
        } else if (typeof r === 'object' && r !== null && r.loss instanceof Tensor && r.grads instanceof ParamGrads) {
          loss = checkLoss(r.loss);
          pg = r.grads;
        } else {
          throw new ArgumentError(`the closure must return the loss (a one-element tensor) or { loss, grads }, got ${show(r)}`, { op: 'LBFGS.step' });
        }
        const grads = noGrad(
          () =>
            params.map((p) => {
              const g = pg.get(p.id);
              if (!g) return fullLike(p.value, 0);
              if (!sameShape(g.shape, p.value.shape)) throw new ShapeError(`the gradient of parameter ${p.id} has another shape than the parameter`, { op: 'LBFGS.step', shapes: [p.value.shape, g.shape] });
              if (g.device.key !== p.value.device.key) throw new ArgumentError(`the gradient of parameter ${p.id} is on ${g.device.key}, the parameter on ${p.value.device.key}`, { op: 'LBFGS.step' });
              return g.clone();
            }),
          runtime,
        );
        pg.dispose();
        return { loss: noGrad(() => loss.reshape([]), runtime), grads };
      }, runtime);
      keep(out.loss, runtime);
      hold(out.grads);
      this.funcEvals++;
      return out;
    };

    /** Sets each parameter to x + t d. */
    const setAt = (x: Vec<B>, t: number, d: Vec<B>): void => {
      run(() => params.forEach((p, i) => p.set(keep(x[i]!.add(d[i]!.mul(t)), runtime))));
    };

    // evaluate initial f(x) and df/dx
    this.busy = true;
    let first: { loss: Tensor<B, 'float'>; grads: Vec<B> };
    try {
      first = evaluate();
    } catch (e) {
      this.busy = false;
      throw e;
    }
    let flatGrad = first.grads;
    try {
      const [origLoss, firstMax, firstSum] = await read(() => [first.loss, maxAbs(flatGrad), flatGrad.map((g) => g.abs().sum()).reduce((s, x) => s.add(x))]);
      let loss = origLoss!;
      let currentEvals = 1;
      if (firstMax! <= this.toleranceGrad) return loss;

      let nIter = 0;
      const gradSum = firstSum!;
      while (nIter < this.maxIter) {
        nIter++;
        this.nIter++;

        // ---- the descent direction ----
        if (this.nIter === 1) {
          free(this.d);
          this.d = hold(run(() => flatGrad.map((g) => g.neg())));
          this.clearHistory();
          this.hDiag = 1;
        } else {
          const prev = this.prevFlatGrad!;
          const d0 = this.d!;
          const t0 = this.t;
          const y = hold(run(() => flatGrad.map((g, i) => g.sub(prev[i]!))));
          const s = hold(run(() => d0.map((x) => x.mul(t0))));
          const [ys, yy] = await read(() => [dot(y, s), dot(y, y)]);
          if (ys! > 1e-10) {
            if (this.oldDirs.length === this.historySize) {
              free(this.oldDirs.shift());
              free(this.oldStps.shift());
              this.ro.shift();
            }
            this.oldDirs.push(y);
            this.oldStps.push(s);
            this.ro.push(f32(1 / ys!));
            this.hDiag = f32(ys! / yy!);
          } else {
            free(y);
            free(s);
          }
          // The two-loop recursion on the device: al and be stay 0-d tensors (no reads).
          const dirs = this.oldDirs;
          const stps = this.oldStps;
          const ro = this.ro;
          const hDiag = this.hDiag;
          const next = hold(
            run(() => {
              let q = flatGrad.map((g) => g.neg());
              const al: Array<Tensor<B, 'float'>> = [];
              for (let i = dirs.length - 1; i >= 0; i--) {
                const a = dot(stps[i]!, q).mul(ro[i]!);
                al[i] = a;
                q = q.map((x, j) => x.sub(dirs[i]![j]!.mul(a)));
              }
              let r = q.map((x) => x.mul(hDiag));
              for (let i = 0; i < dirs.length; i++) {
                const be = dot(dirs[i]!, r).mul(ro[i]!);
                const c = al[i]!.sub(be);
                r = r.map((x, j) => x.add(stps[i]![j]!.mul(c)));
              }
              return r;
            }),
          );
          free(this.d);
          this.d = next;
        }
        free(this.prevFlatGrad);
        this.prevFlatGrad = hold(run(() => flatGrad.map((g) => g.clone())));
        this.prevLoss = loss;

        // ---- the step length ----
        const d = this.d;
        // torch: min(1., 1. / |g|_1) * lr on the first iteration (a float32 tensor where 1 / |g|_1 < 1,
        // else the float lr), then lr.
        const start = this.nIter === 1 ? pyMin(num(1), div(num(1), tensorScalar(gradSum))) : num(1);
        const t0 = this.nIter === 1 ? mul(start, num(this.rate)) : num(this.rate);
        let t = t0.v;
        const [gtd, dMax] = await read(() => [dot(flatGrad, d), maxAbs(d)]);
        // directional derivative below tolerance
        if (gtd! > -this.toleranceChange) {
          this.t = t;
          break;
        }

        let lsEvals = 0;
        let optCond = false;
        if (this.lineSearch === 'strongWolfe') {
          const x = hold(run(() => params.map((p) => p.value.clone())));
          const obj = async (step: number): Promise<{ f: number; g: Vec<B>; gtd: number; gMax: number }> => {
            setAt(x, step, d);
            const e = evaluate();
            try {
              const [f, gd, gMax] = await read(() => [e.loss, dot(e.grads, d), maxAbs(e.grads)]);
              return { f: f!, g: e.grads, gtd: gd!, gMax: gMax! };
            } catch (err) {
              free(e.grads);
              throw err;
            }
          };
          // torch calls _strong_wolfe without tolerance_change: the zoom stops at its default, 1e-9.
          const found = await strongWolfe(obj, t0, tensorScalar(dMax!), loss, flatGrad, tensorScalar(gtd!), 1e-9, free).catch((e: unknown) => {
            // A closure that throws mid-search leaves the parameters at the last accepted point, not a trial one.
            run(() => params.forEach((p, i) => p.set(keep(x[i]!.clone(), runtime))));
            free(x);
            throw e;
          });
          loss = found.f;
          free(flatGrad === found.g ? undefined : flatGrad);
          flatGrad = found.g;
          t = found.t;
          lsEvals = found.evals;
          setAt(x, t, d);
          free(x);
          optCond = found.gMax <= this.toleranceGrad;
        } else {
          run(() => params.forEach((p, i) => p.set(keep(p.value.add(d[i]!.mul(t)), runtime))));
          if (nIter !== this.maxIter) {
            // Re-evaluated only when another iteration follows (torch: no use in a stochastic setting).
            const e = evaluate();
            const [f, gMax] = await read(() => [e.loss, maxAbs(e.grads)]);
            free(flatGrad);
            flatGrad = e.grads;
            loss = f!;
            optCond = gMax! <= this.toleranceGrad;
            lsEvals = 1;
          }
        }
        this.t = t;
        currentEvals += lsEvals;

        // ---- stopping conditions ----
        if (nIter === this.maxIter) break;
        if (currentEvals >= this.maxEval) break;
        if (optCond) break;
        // lack of progress: max |d t| (read as max |d| times t)
        if (f32(dMax! * Math.abs(t)) <= this.toleranceChange) break;
        if (Math.abs(loss - this.prevLoss) < this.toleranceChange) break;
      }
      return origLoss!;
    } finally {
      free(flatGrad);
      this.busy = false;
    }
  }

  private clearHistory(): void {
    this.oldDirs.forEach((v) => v.forEach((x) => x.dispose()));
    this.oldStps.forEach((v) => v.forEach((x) => x.dispose()));
    this.oldDirs = [];
    this.oldStps = [];
    this.ro = [];
  }

  /** Every state tensor: the direction, the last gradient, the curvature pairs. */
  stateTensors(): Array<Tensor<B, 'float'>> {
    return [...(this.d ?? []), ...(this.prevFlatGrad ?? []), ...this.oldDirs.flat(), ...this.oldStps.flat()];
  }

  /**
   * The state as plain data: per parameter the tensors 'd', 'prevFlatGrad', 'oldDirs.i' and
   * 'oldStps.i' (step: the iteration count), and the scalars.
   */
  async state(): Promise<LBFGSRecord> {
    const params: Record<string, { step: number; tensors: Record<string, TensorRecord> }> = {};
    const ids = this.ids ?? [];
    const named: Array<[string, Vec<B> | undefined]> = [['d', this.d], ['prevFlatGrad', this.prevFlatGrad], ...this.oldDirs.map((v, i): [string, Vec<B>] => [`oldDirs.${i}`, v]), ...this.oldStps.map((v, i): [string, Vec<B>] => [`oldStps.${i}`, v])];
    await Promise.all(
      ids.map(async (id, j) => {
        const tensors: Record<string, TensorRecord> = {};
        for (const [name, v] of named) {
          const t = v?.[j];
          if (!t) continue;
          const { shape, values } = await t.toData();
          tensors[name] = { shape, dtype: 'float32', data: ownedFloat32(values) };
        }
        params[id] = { step: this.nIter, tensors };
      }),
    );
    return { kind: this.kind, params, scalars: { nIter: this.nIter, funcEvals: this.funcEvals, t: this.t, hDiag: this.hDiag, prevLoss: this.prevLoss, ro: [...this.ro] } };
  }

  /** Restores state() for the trainable parameters of `module` (checked before anything changes). */
  loadState(record: LBFGSRecord, module: Module<B>): void {
    const op = 'LBFGS.loadState';
    const r: unknown = record;
    const scalars: unknown = field(r, 'scalars');
    const recParams: unknown = field(r, 'params');
    if (field(r, 'kind') !== this.kind || typeof recParams !== 'object' || recParams === null || typeof scalars !== 'object' || scalars === null) {
      throw new ArgumentError(`the state must be { kind: 'lbfgs', params, scalars } as LBFGS.state() returns, got ${show(r)}`, { op });
    }
    if (typeof field(module, 'params') !== 'function') throw new ArgumentError(`the second argument must be the module the state belongs to, got ${show(module)}`, { op });
    const num = (name: string): number => {
      const v = field(scalars, name);
      if (typeof v !== 'number' || Number.isNaN(v)) throw new ArgumentError(`scalars.${name} must be a number, got ${show(v)}`, { op });
      return v;
    };
    const ro: unknown = field(scalars, 'ro');
    if (!Array.isArray(ro) || ro.some((v) => typeof v !== 'number')) throw new ArgumentError(`scalars.ro must be a list of numbers, got ${show(ro)}`, { op });
    const nIter = num('nIter');
    const funcEvals = num('funcEvals');
    const t = num('t');
    const hDiag = num('hDiag');
    const prevLoss = num('prevLoss');
    const history = ro.length;
    if (history > this.historySize) throw new ArgumentError(`the state holds ${history} curvature pairs, more than historySize ${this.historySize}`, { op });
    const params: Array<Param<B>> = module.params().filter((p) => p.trainable);
    const entries = params.map((p) => field(recParams, p.id));
    const stored = Object.keys(recParams).length;
    // A state past its first iteration holds tensors: without them the next step has no direction.
    if (stored === 0 && (nIter > 0 || history > 0)) throw new ArgumentError(`the state has ${nIter} iterations and ${history} curvature pairs but no parameter tensors`, { op, hint: 'pass a record from LBFGS.state()' });
    if (stored !== 0 && entries.some((e) => e === undefined)) throw new ArgumentError('the state does not cover every trainable parameter of this module (no ParamId match)', { op, hint: 'load the module from the record saved with this state first' });
    const names = stored === 0 ? [] : [...(nIter > 0 ? ['d', 'prevFlatGrad'] : []), ...Array.from({ length: history }, (_, i) => `oldDirs.${i}`), ...Array.from({ length: history }, (_, i) => `oldStps.${i}`)];
    params.forEach((p, j) => {
      const tensors = field(entries[j], 'tensors');
      for (const name of names) {
        const t = savedTensor(field(tensors, name), p.value.size);
        if (!t || !sameShape(t.shape, p.shape)) {
          throw new ShapeError(`state '${name}' of parameter ${p.id} must hold ${p.value.size} float32 values of shape [${p.shape.join(', ')}]`, { op, shapes: [p.shape] });
        }
      }
    });
    this.clear();
    const vec = (name: string): Vec<B> =>
      params.map((p, j) => {
        const t = savedTensor(field(field(entries[j], 'tensors'), name), p.value.size);
        if (!t) throw new ArgumentError(`state '${name}' of parameter ${p.id} is missing`, { op: 'LBFGS.loadState' });
        return keep(fromData(p.value.backend, t.data, { shape: t.shape, device: p.value.device, dtype: p.value.dtype }), p.value.backend.runtime);
      });
    if (stored !== 0 && nIter > 0) {
      this.d = vec('d');
      this.prevFlatGrad = vec('prevFlatGrad');
      this.oldDirs = Array.from({ length: history }, (_, i) => vec(`oldDirs.${i}`));
      this.oldStps = Array.from({ length: history }, (_, i) => vec(`oldStps.${i}`));
    }
    this.ids = stored !== 0 ? params.map((p) => p.id) : undefined;
    this.nIter = nIter;
    this.funcEvals = funcEvals;
    this.t = t;
    this.hDiag = hDiag;
    this.prevLoss = prevLoss;
    this.ro = ro.map(Number);
  }

  /** Drops all state (the next step starts as the first). */
  clear(): void {
    this.d?.forEach((x) => x.dispose());
    this.prevFlatGrad?.forEach((x) => x.dispose());
    this.clearHistory();
    this.d = undefined;
    this.prevFlatGrad = undefined;
    this.ids = undefined;
    this.nIter = 0;
    this.funcEvals = 0;
    this.t = 0;
    this.hDiag = 1;
    this.prevLoss = 0;
  }
}

/** A saved tensor of `size` float32 values, or undefined for anything else. */
function savedTensor(t: unknown, size: number): { shape: number[]; data: Float32Array } | undefined {
  const shape: unknown = field(t, 'shape');
  const data: unknown = field(t, 'data');
  if (!Array.isArray(shape) || !shape.every((d): d is number => typeof d === 'number') || !(data instanceof Float32Array) || data.length !== size) return undefined;
  return { shape, data };
}

/**
 * For the APIs that step an optimizer once per batch with that batch's gradients (fit,
 * DataParallel) or save its state as tensors (the checkpoint files): LBFGS's step takes a closure
 * it evaluates several times, and its state has scalars beside the tensors.
 */
export function refuseLBFGS(op: string, optimizer: unknown): void {
  if (optimizer instanceof LBFGS) {
    throw new ArgumentError("LBFGS cannot be used here: its step evaluates a closure several times, where this steps an optimizer once with each batch's gradients", {
      op,
      hint: 'write the loop: await opt.step(model, () => lossOf(model)) per step; keep its state with opt.state() / opt.loadState()',
    });
  }
}

function checkLoss<B extends Backend>(loss: Tensor<B, 'float'>): Tensor<B, 'float'> {
  if (loss.size !== 1) throw new ShapeError(`the closure's loss must have one element, got shape [${loss.shape.join(', ')}]`, { op: 'LBFGS.step', shapes: [loss.shape], hint: 'reduce it (.mean() or .sum())' });
  if (!loss.dtype.startsWith('float')) throw new ArgumentError(`the closure's loss must be a float tensor, got ${loss.dtype}`, { op: 'LBFGS.step' });
  return loss;
}

/**
 * A scalar of torch's line search: a Python float (float64) or a 0-d float32 tensor. torch mixes
 * the two (losses are floats, slopes are tensors, a step length becomes a tensor once it comes out
 * of an interpolation), and an operation with a tensor rounds the float to float32 and computes in
 * float32; followed here so the search takes torch's steps to the last bit.
 */
interface Scalar {
  readonly v: number;
  readonly f32: boolean;
}
const tensorScalar = (v: number): Scalar => ({ v: f32(v), f32: true });
const floatScalar = (v: number): Scalar => ({ v, f32: false });
/** `a op b` as torch computes it (float32 if either is a tensor: + - * / of float32 values rounded once are exact in float64). */
function arith(a: Scalar, b: Scalar, op: (x: number, y: number) => number): Scalar {
  return a.f32 || b.f32 ? tensorScalar(op(f32(a.v), f32(b.v))) : floatScalar(op(a.v, b.v));
}
const add = (a: Scalar, b: Scalar): Scalar => arith(a, b, (x, y) => x + y);
const sub = (a: Scalar, b: Scalar): Scalar => arith(a, b, (x, y) => x - y);
const mul = (a: Scalar, b: Scalar): Scalar => arith(a, b, (x, y) => x * y);
const div = (a: Scalar, b: Scalar): Scalar => arith(a, b, (x, y) => x / y);
/** The values compared as torch compares them (in float32 if either is a tensor). */
const cmp = (a: Scalar, b: Scalar): [number, number] => (a.f32 || b.f32 ? [f32(a.v), f32(b.v)] : [a.v, b.v]);
const lt = (a: Scalar, b: Scalar): boolean => {
  const [x, y] = cmp(a, b);
  return x < y;
};
const le = (a: Scalar, b: Scalar): boolean => {
  const [x, y] = cmp(a, b);
  return x <= y;
};
/** Python's min / max of two: the first unless the second is strictly beyond it. */
const pyMin = (a: Scalar, b: Scalar): Scalar => (lt(b, a) ? b : a);
const pyMax = (a: Scalar, b: Scalar): Scalar => (lt(a, b) ? b : a);
const pyAbs = (a: Scalar): Scalar => ({ v: Math.abs(a.v), f32: a.f32 });
const num = floatScalar;

/** torch's `_cubic_interpolate`: the minimiser of the cubic through two points with their slopes, within bounds. */
export function cubicInterpolate(x1: number, f1: number, g1: number, x2: number, f2: number, g2: number, bounds?: readonly [number, number]): number {
  return cubic(num(x1), num(f1), num(g1), num(x2), num(f2), num(g2), bounds && [num(bounds[0]), num(bounds[1])]).v;
}

function cubic(x1: Scalar, f1: Scalar, g1: Scalar, x2: Scalar, f2: Scalar, g2: Scalar, bounds?: readonly [Scalar, Scalar]): Scalar {
  const [xmin, xmax] = bounds ?? (le(x1, x2) ? [x1, x2] : [x2, x1]);
  const d1 = sub(add(g1, g2), div(mul(num(3), sub(f1, f2)), sub(x1, x2)));
  const d2sq = sub(mul(d1, d1), mul(g1, g2));
  if (le(num(0), d2sq)) {
    const d2: Scalar = { v: d2sq.f32 ? f32(Math.sqrt(d2sq.v)) : Math.sqrt(d2sq.v), f32: d2sq.f32 };
    const minPos = le(x1, x2)
      ? sub(x2, mul(sub(x2, x1), div(sub(add(g2, d2), d1), add(sub(g2, g1), mul(num(2), d2)))))
      : sub(x1, mul(sub(x1, x2), div(sub(add(g1, d2), d1), add(sub(g1, g2), mul(num(2), d2)))));
    return pyMin(pyMax(minPos, xmin), xmax);
  }
  return div(add(xmin, xmax), num(2));
}

interface Point<G> {
  /** The loss, a Python float in torch. */
  f: number;
  g: G;
  /** g . d, a float32 tensor in torch. */
  gtd: number;
  gMax: number;
}

/** A point of the search with its step length. */
interface At<G> {
  t: Scalar;
  f: Scalar;
  g: G;
  gtd: Scalar;
  gMax: number;
}

/**
 * torch's `_strong_wolfe` (c1 1e-4, c2 0.9, 25 evaluations at most): brackets a step meeting the
 * strong Wolfe conditions, then zooms in by cubic interpolation. `obj(t)` evaluates at x + t d;
 * `free` disposes a gradient no longer referenced. Its scalars are Python floats or float32
 * tensors as in torch (see Scalar): near convergence, or after a few interpolations, a double
 * where torch has a float32 takes another step.
 */
async function strongWolfe<G>(
  obj: (t: number) => Promise<Point<G>>,
  t0: Scalar,
  dNorm: Scalar,
  f0: number,
  g: G,
  gtd0: Scalar,
  toleranceChange: number,
  free: (g: G) => void,
): Promise<{ f: number; g: G; t: number; evals: number; gMax: number }> {
  const c1 = num(1e-4);
  const c2 = num(0.9);
  const maxLs = 25;
  const f = num(f0);
  const gtd = gtd0;
  // f_new > f + c1 t gtd
  const armijoFails = (fNew: Scalar, t: Scalar): boolean => lt(add(f, mul(mul(c1, t), gtd)), fNew);
  // |gtd_new| <= -c2 gtd
  const curved = (gtdNew: Scalar): boolean => le(pyAbs(gtdNew), mul(sub(num(0), c2), gtd));
  // Gradients still referenced by the bracket: freed once dropped (g, the caller's, never).
  const live = new Set<G>();
  const drop = (x: G): void => {
    if (x !== g && live.delete(x)) free(x);
  };
  const evaluate = async (t: Scalar): Promise<At<G>> => {
    const p = await obj(t.v);
    live.add(p.g);
    return { t, f: num(p.f), g: p.g, gtd: tensorScalar(p.gtd), gMax: p.gMax };
  };
  try {
    return await search();
  } catch (e) {
    // A closure that threw mid-search: the gradients the bracket held go too.
    for (const x of [...live]) drop(x);
    throw e;
  }

  async function search(): Promise<{ f: number; g: G; t: number; evals: number; gMax: number }> {
    let t = t0;
    let cur = await evaluate(t);
    let evals = 1;
    let prev: At<G> = { t: num(0), f, g, gtd, gMax: Infinity };
    let done = false;
    let lsIter = 0;
    let bracket: Array<At<G>> = [];
    while (lsIter < maxLs) {
      if (armijoFails(cur.f, t) || (lsIter > 1 && le(prev.f, cur.f))) {
        bracket = [prev, cur];
        break;
      }
      if (curved(cur.gtd)) {
        bracket = [cur];
        done = true;
        break;
      }
      if (le(num(0), cur.gtd)) {
        bracket = [prev, cur];
        break;
      }
      const minStep = add(t, mul(num(0.01), sub(t, prev.t)));
      const maxStep = mul(t, num(10));
      t = cubic(prev.t, prev.f, prev.gtd, t, cur.f, cur.gtd, [minStep, maxStep]);
      drop(prev.g);
      prev = cur;
      cur = await evaluate(t);
      evals++;
      lsIter++;
    }
    if (lsIter === maxLs) {
      // torch keeps the gtds of the loop's bracket here; the zoom below does not run.
      drop(prev.g);
      bracket = [{ t: num(0), f, g, gtd, gMax: Infinity }, cur];
    }
    let insufProgress = false;
    let low = le(bracket[0]!.f, bracket[bracket.length - 1]!.f) ? 0 : 1;
    let high = 1 - low;
    while (!done && lsIter < maxLs) {
      const b0 = bracket[0]!;
      const b1 = bracket[1]!;
      if (lt(mul(pyAbs(sub(b1.t, b0.t)), dNorm), num(toleranceChange))) break;
      t = cubic(b0.t, b0.f, b0.gtd, b1.t, b1.f, b1.gtd);
      const hi = pyMax(b0.t, b1.t);
      const lo = pyMin(b0.t, b1.t);
      const eps = mul(num(0.1), sub(hi, lo));
      if (lt(pyMin(sub(hi, t), sub(t, lo)), eps)) {
        if (insufProgress || le(hi, t) || le(t, lo)) {
          t = lt(pyAbs(sub(t, hi)), pyAbs(sub(t, lo))) ? sub(hi, eps) : add(lo, eps);
          insufProgress = false;
        } else {
          insufProgress = true;
        }
      } else {
        insufProgress = false;
      }
      const p = await evaluate(t);
      evals++;
      lsIter++;
      if (armijoFails(p.f, t) || le(bracket[low]!.f, p.f)) {
        drop(bracket[high]!.g);
        bracket[high] = p;
        [low, high] = le(bracket[0]!.f, bracket[1]!.f) ? [0, 1] : [1, 0];
      } else {
        let replacedHigh = false;
        if (curved(p.gtd)) {
          done = true;
        } else if (le(num(0), mul(p.gtd, sub(bracket[high]!.t, bracket[low]!.t)))) {
          // old high becomes new low
          drop(bracket[high]!.g);
          bracket[high] = bracket[low]!;
          replacedHigh = true;
        }
        if (!replacedHigh) drop(bracket[low]!.g);
        bracket[low] = p;
      }
    }
    const best = bracket[low]!;
    // What the bracket no longer needs (and the other end) is freed; the result's gradient is kept.
    for (const x of [...live]) if (x !== best.g) drop(x);
    live.delete(best.g);
    return { f: best.f.v, g: best.g, t: best.t.v, evals, gMax: best.gMax };
  }
}
