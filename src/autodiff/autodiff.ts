/**
 * Autodiff<B>: a decorator over any backend (Cpu, Wgpu, a Router). Every op is forwarded to the
 * inner backend unchanged; when a float op has a tracked input (and no noGrad scope is open),
 * the tape records what its gradient rule needs. Handles are the inner backend's own, so reads,
 * releases and devices pass straight through.
 */
import type { ApplyOptions, Backend, Handle } from '../backends/backend.js';
import { DTypeError } from '../errors.js';
import type { TypedArray } from '../ir/dtype.js';
import type { OpAttrs, OpName } from '../ir/ops.js';
import type { MemoryInfo } from '../memory/info.js';
import { backward } from './backward.js';
import { isGradEnabled } from './grad-mode.js';
import { gradOf } from './gradients/index.js';
import { NONE, type GradRule } from './gradients/rule.js';
import type { Gradients } from './gradients.js';
import { Tape } from './tape.js';
import type { AutodiffBackend, BackwardOptions } from './types.js';

type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

export class Autodiff<B extends Backend> implements AutodiffBackend<DeviceOf<B>> {
  readonly name: string;
  readonly autodiff = true as const;
  readonly inner: B;
  private readonly tape: Tape;

  constructor(inner: B) {
    this.inner = inner;
    this.name = `autodiff<${inner.name}>`;
    this.tape = new Tape(inner);
  }

  defaultDevice(): DeviceOf<B> {
    return this.inner.defaultDevice() as DeviceOf<B>;
  }

  apply<N extends OpName>(op: N, inputs: readonly Handle[], attrs: OpAttrs[N], options?: ApplyOptions): Handle[] {
    const outputs = this.inner.apply(op, inputs, attrs, options);
    if (inputs.length === 0 || !isGradEnabled()) return outputs;
    const rule = gradOf(op);
    const out = outputs[0];
    // Only float results carry gradients: int/bool outputs (argmax, comparisons, casts) cut the graph.
    if (rule === NONE || outputs.length !== 1 || out!.dtype !== 'float32') return outputs;
    this.tape.record(op, inputs, attrs as OpAttrs[OpName], rule as GradRule<OpName>, out!);
    return outputs;
  }

  requireGrad(h: Handle): void {
    if (h.dtype !== 'float32') {
      throw new DTypeError('only float tensors can require grad', { op: 'requireGrad', dtypes: [h.dtype], hint: 'cast with .cast("float32") first' });
    }
    this.tape.leaf(h);
  }

  requiresGrad(h: Handle): boolean {
    return this.tape.get(h) !== undefined;
  }

  backward(h: Handle, options?: BackwardOptions): Gradients {
    return backward(this.tape, this.inner, this, h, options);
  }

  detach(h: Handle): Handle {
    // A view through the inner backend: the tape never sees it.
    return this.inner.apply('reshape', [h], { shape: h.shape })[0]!;
  }

  read(h: Handle): Promise<TypedArray> {
    return this.inner.read(h);
  }

  release(h: Handle): void {
    this.inner.release(h);
  }

  retain(h: Handle): void {
    this.inner.retain(h);
  }

  isLive(h: Handle): boolean {
    return this.inner.isLive(h);
  }

  seed(seed: number, device?: DeviceOf<B>): void {
    this.inner.seed(seed, device);
  }

  randomStream(device: DeviceOf<B>, count: number): { seed: number; counter: number } {
    return this.inner.randomStream(device, count);
  }

  memory(device?: DeviceOf<B>): MemoryInfo {
    return this.inner.memory(device);
  }

  /** Closes the inner backend when it can be closed (Cpu, Wgpu, Router). */
  async close(): Promise<void> {
    const c = this.inner as Partial<{ close(): Promise<void> }>;
    if (typeof c.close === 'function') await c.close();
  }
}
