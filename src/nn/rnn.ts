/**
 * Recurrent layers (torch.nn.RNN, torch.nn.LSTM and torch.nn.GRU): stacked, optionally bidirectional, with
 * dropout between layers while training. Inputs are batch-first by default ([N, L, in]; pass
 * `batchFirst: false` for PyTorch's default [L, N, in]). Gate order as PyTorch (LSTM: i, f, g, o;
 * GRU: r, z, n; RNN: one); weights stored [in, gates * hidden] here ([gates * hidden, in] in a state dict),
 * all initialised U(-1/sqrt(hidden), 1/sqrt(hidden)) as PyTorch.
 */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import { ArgumentError, ShapeError } from '../errors.js';
import { checkOptions, show } from '../ir/validate.js';
import { tidy } from '../memory/tidy.js';
import { zeros } from '../tensor/creation.js';
import { Tensor } from '../tensor/tensor.js';
import { checkDropout, dropout } from './functional/dropout.js';
import { checkLayer, checkOptionalTensors, checkTensors } from './check.js';
import { uniform } from './init.js';
import { Module, type TorchKey } from './module.js';
import { Param } from './param.js';

type F<B extends Backend> = Tensor<B, 'float'>;

export interface RnnOptions {
  /** Default 1. */
  numLayers?: number;
  /** Default true. */
  bias?: boolean;
  /** Inputs and outputs [N, L, features] (default true) or [L, N, features]. */
  batchFirst?: boolean;
  /** Dropout on each layer's output but the last, while training (default 0). */
  dropout?: number;
  /** Default false. */
  bidirectional?: boolean;
  device?: Device;
}

export interface LstmOptions extends RnnOptions {
  /**
   * torch's proj_size: h (and the output) is o * tanh(c) times a learned [hidden, projSize] matrix
   * (torch's weight_hr_l{k}), so h has projSize features while c keeps hiddenSize. Default 0 (none);
   * less than hiddenSize.
   */
  projSize?: number;
}

export interface RnnOutput<B extends Backend> {
  /** [N, L, directions * hidden] (or [L, N, ...] when not batch-first): the last layer's hidden state at every step. */
  readonly output: F<B>;
  /** [layers * directions, N, hidden] (LSTM with projSize: projSize features): the final hidden state of every layer and direction. */
  readonly h: F<B>;
}

abstract class Recurrent<B extends Backend> extends Module<B> {
  readonly weightIh: Array<Param<B>> = [];
  readonly weightHh: Array<Param<B>> = [];
  readonly biasIh: Array<Param<B>> = [];
  readonly biasHh: Array<Param<B>> = [];
  /** LSTM with projSize: [hidden, projSize] per layer and direction (torch's weight_hr, stored [in, out]). */
  readonly weightHr: Array<Param<B>> = [];
  /** The features of h and of the output per direction: projSize when given, else hiddenSize. */
  readonly outSize: number;
  readonly numLayers: number;
  readonly directions: number;
  readonly batchFirst: boolean;
  readonly dropout: number;

  constructor(backend: B, readonly inputSize: number, readonly hiddenSize: number, gates: number, protected readonly op: string, options: RnnOptions, projSize = 0) {
    super();
    // Untyped callers: a null options or a missing backend is named here, not a TypeError below.
    checkLayer(op, backend, options);
    this.numLayers = options.numLayers ?? 1;
    this.directions = options.bidirectional ? 2 : 1;
    this.batchFirst = options.batchFirst ?? true;
    this.dropout = options.dropout ?? 0;
    for (const [name, v] of [['inputSize', inputSize], ['hiddenSize', hiddenSize], ['numLayers', this.numLayers]] as const) {
      if (!Number.isInteger(v) || v < 1) throw new ArgumentError(`${name} must be a positive integer, got ${v}`, { op });
    }
    checkDropout(op, this.dropout, 'dropout');
    if (!Number.isInteger(projSize) || projSize < 0 || projSize >= hiddenSize) {
      throw new ArgumentError(`projSize must be an integer from 0 (none) to hiddenSize - 1 (${hiddenSize - 1}), got ${show(projSize)}`, { op });
    }
    this.outSize = projSize > 0 ? projSize : hiddenSize;
    const device = options.device ?? backend.defaultDevice();
    const bound = 1 / Math.sqrt(hiddenSize);
    const init = (shape: number[]) => new Param(uniform(backend, shape, -bound, bound, { device }));
    for (let layer = 0; layer < this.numLayers; layer++) {
      const inSize = layer === 0 ? inputSize : this.outSize * this.directions;
      for (let dir = 0; dir < this.directions; dir++) {
        this.weightIh.push(init([inSize, gates * hiddenSize]));
        this.weightHh.push(init([this.outSize, gates * hiddenSize]));
        if (options.bias !== false) {
          this.biasIh.push(init([gates * hiddenSize]));
          this.biasHh.push(init([gates * hiddenSize]));
        }
        if (projSize > 0) this.weightHr.push(init([hiddenSize, projSize]));
      }
    }
  }

  override torchKeys(): Readonly<Record<string, TorchKey>> {
    const keys: Record<string, TorchKey> = {};
    for (let k = 0; k < this.weightIh.length; k++) {
      const suffix = `_l${Math.floor(k / this.directions)}${k % this.directions === 1 ? '_reverse' : ''}`;
      keys[`weightIh.${k}`] = { key: `weight_ih${suffix}`, layout: 'transpose' };
      keys[`weightHh.${k}`] = { key: `weight_hh${suffix}`, layout: 'transpose' };
      keys[`biasIh.${k}`] = { key: `bias_ih${suffix}` };
      keys[`biasHh.${k}`] = { key: `bias_hh${suffix}` };
      keys[`weightHr.${k}`] = { key: `weight_hr${suffix}`, layout: 'transpose' };
    }
    return keys;
  }

  /** One step: the new state from the input's projection xw [N, G H] (bias included) and the state. */
  protected abstract cell(xw: F<B>, state: F<B>[], k: number): F<B>[];

  /** The features of state j (LSTM: h then c; c keeps hiddenSize under projSize). */
  protected stateSize(j: number): number {
    return j === 0 ? this.outSize : this.hiddenSize;
  }

  /** The states given with input `x`: [layers * directions, N, hidden], or [layers * directions, hidden] with an unbatched input. */
  protected checkStates(x: F<B>, states: Readonly<Record<string, F<B> | undefined>>): void {
    if (x.rank !== 2 && x.rank !== 3) {
      throw new ShapeError(`the input must be ${this.batchFirst ? '[N, L' : '[L, N'}, ${this.inputSize}] or unbatched [L, ${this.inputSize}]`, { op: this.op, shapes: [x.shape] });
    }
    for (const [j, [name, t]] of Object.entries(states).entries()) {
      const size = this.stateSize(j);
      const want = x.rank === 2 ? [this.numLayers * this.directions, size] : [this.numLayers * this.directions, x.shape[this.batchFirst ? 0 : 1]!, size];
      if (t && (t.rank !== want.length || t.shape.some((d, i) => d !== want[i]))) {
        const what = x.rank === 2 ? 'layers * directions, hidden; the input is unbatched' : 'layers * directions, batch, hidden';
        throw new ShapeError(`${name} must be [${want.join(', ')}] (${what})`, { op: this.op, shapes: [x.shape, t.shape] });
      }
    }
  }

  /**
   * Runs every layer and direction; `initial` holds per-state [layers * dirs, N, H] tensors (zeros
   * when absent). An unbatched input [L, in] (torch takes one too) runs as a batch of one, with
   * states [layers * dirs, H].
   */
  protected run(x: F<B>, initial: Array<F<B> | undefined>): { output: F<B>; finals: F<B>[] } {
    if (x.rank === 2) {
      return tidy(() => {
        const batchDim = this.batchFirst ? 0 : 1;
        const r = this.run(x.unsqueeze(batchDim), initial.map((s) => s?.unsqueeze(1)));
        return { output: r.output.squeeze(batchDim), finals: r.finals.map((f) => f.squeeze(1)) };
      });
    }
    if (x.rank !== 3 || x.shape[2] !== this.inputSize) {
      throw new ShapeError(`the input must be ${this.batchFirst ? '[N, L' : '[L, N'}, ${this.inputSize}] or unbatched [L, ${this.inputSize}]`, { op: this.op, shapes: [x.shape] });
    }
    const input = this.batchFirst ? x : x.swapDims(0, 1);
    const [n, l] = input.shape as [number, number];
    return tidy(() => {
      const finals: F<B>[][] = initial.map(() => []);
      let layerInput = input;
      for (let layer = 0; layer < this.numLayers; layer++) {
        const outs: F<B>[] = [];
        for (let dir = 0; dir < this.directions; dir++) {
          const k = layer * this.directions + dir;
          let xw = layerInput.matmul(this.weightIh[k]!.value);
          if (this.biasIh[k]) xw = xw.add(this.biasIh[k]!.value);
          // Zero states in the input's dtype (a float16 LSTM's matmuls refuse float32 ones).
          let state = initial.map((s, j) => (s ? s.narrow(0, k, 1).reshape([n, this.stateSize(j)]) : zeros(x.backend, [n, this.stateSize(j)], { device: x.device, dtype: x.dtype })));
          const steps: F<B>[] = new Array<F<B>>(l);
          for (let i = 0; i < l; i++) {
            const t = dir === 0 ? i : l - 1 - i;
            state = this.cell(xw.narrow(1, t, 1).reshape([n, xw.shape[2]!]), state, k);
            steps[t] = state[0]!;
          }
          state.forEach((s, j) => finals[j]!.push(s));
          outs.push(l === 0 ? zeros(x.backend, [n, 0, this.outSize], { device: x.device, dtype: x.dtype }) : Tensor.stack(steps, 1));
        }
        layerInput = outs.length === 1 ? outs[0]! : Tensor.cat(outs, 2);
        if (layer < this.numLayers - 1) layerInput = dropout(layerInput, this.dropout, this.training);
      }
      const output = this.batchFirst ? layerInput : layerInput.swapDims(0, 1);
      return { output, finals: finals.map((f) => Tensor.stack(f, 0)) };
    });
  }

  /** h @ W_hh + b_hh for direction-layer k. */
  protected hidden(h: F<B>, k: number): F<B> {
    const y = h.matmul(this.weightHh[k]!.value);
    return this.biasHh[k] ? y.add(this.biasHh[k]!.value) : y;
  }

  /** The forward of a recurrence with one state (RNN, GRU): `h` defaults to zeros. */
  protected forwardH(x: F<B>, h: F<B> | undefined): RnnOutput<B> {
    checkTensors(this.op, { input: x });
    checkOptionalTensors(this.op, { h });
    this.checkStates(x, { h });
    const { output, finals } = this.run(x, [h]);
    return { output, h: finals[0]! };
  }
}

export class LSTM<B extends Backend = Backend> extends Recurrent<B> {
  constructor(backend: B, inputSize: number, hiddenSize: number, options: LstmOptions = {}) {
    // Checked before projSize is read from it.
    checkLayer('LSTM', backend, options);
    super(backend, inputSize, hiddenSize, 4, 'LSTM', options, options.projSize ?? 0);
  }

  /** `state` defaults to zeros; returns the output and the final h and c. */
  forward(x: F<B>, state: { h?: F<B>; c?: F<B> } = {}): RnnOutput<B> & { readonly c: F<B> } {
    checkTensors(this.op, { input: x });
    checkOptions(this.op, state);
    checkOptionalTensors(this.op, { h: state.h, c: state.c });
    this.checkStates(x, { h: state.h, c: state.c });
    const { output, finals } = this.run(x, [state.h, state.c]);
    return { output, h: finals[0]!, c: finals[1]! };
  }

  protected cell(xw: F<B>, [h, c]: F<B>[], k: number): F<B>[] {
    const [i, f, g, o] = xw.add(this.hidden(h!, k)).chunk(4, 1) as [F<B>, F<B>, F<B>, F<B>];
    const c2 = f.sigmoid().mul(c!).add(i.sigmoid().mul(g.tanh()));
    const h2 = o.sigmoid().mul(c2.tanh());
    return [this.weightHr[k] ? h2.matmul(this.weightHr[k]!.value) : h2, c2];
  }
}

export class GRU<B extends Backend = Backend> extends Recurrent<B> {
  constructor(backend: B, inputSize: number, hiddenSize: number, options: RnnOptions = {}) {
    super(backend, inputSize, hiddenSize, 3, 'GRU', options);
  }

  /** `h` defaults to zeros; returns the output and the final h. */
  forward(x: F<B>, h?: F<B>): RnnOutput<B> {
    return this.forwardH(x, h);
  }

  protected cell(xw: F<B>, [h]: F<B>[], k: number): F<B>[] {
    const [xr, xz, xn] = xw.chunk(3, 1) as [F<B>, F<B>, F<B>];
    const [hr, hz, hn] = this.hidden(h!, k).chunk(3, 1) as [F<B>, F<B>, F<B>];
    const r = xr.add(hr).sigmoid();
    const z = xz.add(hz).sigmoid();
    const cand = xn.add(r.mul(hn)).tanh();
    // h' = (1 - z) n + z h = n + z (h - n)
    return [cand.add(z.mul(h!.sub(cand)))];
  }
}

export interface ElmanRnnOptions extends RnnOptions {
  /** h' = act(x W_ih + b_ih + h W_hh + b_hh) with act 'tanh' (default) or 'relu'. */
  nonlinearity?: 'tanh' | 'relu';
}

/** torch.nn.RNN: the plain (Elman) recurrent layer. */
export class RNN<B extends Backend = Backend> extends Recurrent<B> {
  readonly nonlinearity: 'tanh' | 'relu';

  constructor(backend: B, inputSize: number, hiddenSize: number, options: ElmanRnnOptions = {}) {
    super(backend, inputSize, hiddenSize, 1, 'RNN', options);
    const act: unknown = options.nonlinearity ?? 'tanh';
    if (act !== 'tanh' && act !== 'relu') throw new ArgumentError(`nonlinearity must be 'tanh' or 'relu', got ${show(act)}`, { op: 'RNN' });
    this.nonlinearity = act;
  }

  /** `h` defaults to zeros; returns the output and the final h. */
  forward(x: F<B>, h?: F<B>): RnnOutput<B> {
    return this.forwardH(x, h);
  }

  protected cell(xw: F<B>, [h]: F<B>[], k: number): F<B>[] {
    const pre = xw.add(this.hidden(h!, k));
    return [this.nonlinearity === 'tanh' ? pre.tanh() : pre.relu()];
  }
}
