/**
 * The one place op records are made: checks the call (inputs on one device), infers output
 * shapes and dtypes (throwing typed errors at the call), allocates ids from the caller's runtime
 * and returns the record with the output handles. The tensor API calls it; every layer below
 * only forwards or runs what it built.
 */
import { DeviceError } from '../errors.js';
import type { Device } from '../devices/device.js';
import type { DType } from './dtype.js';
import { inferOutputs, type OpCall } from './infer.js';
import type { OpAttrs, OpName, OpRecord, TensorMeta } from './ops.js';

/** An input as the builder needs it: meta and device tag. */
export interface BuilderInput extends TensorMeta {
  readonly device: Device;
}

export interface IdAllocator {
  tensor(): number;
  op(): number;
}

export interface Built<N extends OpName> {
  readonly record: OpRecord;
  /** The outputs' metas with the device tag they live on. */
  readonly outputs: Array<TensorMeta & { readonly device: Device }>;
}

/** The device all inputs share, or a DeviceError naming the two that differ. */
export function commonDevice(op: string, inputs: readonly BuilderInput[]): Device | undefined {
  const first = inputs[0]?.device;
  if (first === undefined) return undefined;
  for (let i = 1; i < inputs.length; i++) {
    const d = inputs[i]!.device;
    if (d !== first && d.key !== first.key) {
      throw new DeviceError(`inputs live on different devices (${first.key} and ${d.key})`, {
        op,
        devices: [first.key, d.key],
        hint: 'move one input first with t.toDevice(device) (through a Router over both backends); nothing moves between devices silently',
      });
    }
  }
  return first;
}

/**
 * The shape with any dim of -0 made 0. A -0 passes every integer check (k = -0 for topk, a
 * length of -0 for narrow) and would become a dim whose size is -0; a loop, not a copy, in the
 * usual case.
 */
function plainZeros(shape: readonly number[]): readonly number[] {
  for (const d of shape) if (Object.is(d, -0)) return shape.map((x) => x + 0);
  return shape;
}

function finish<N extends OpName>(ids: IdAllocator, op: N, device: Device, inputs: readonly TensorMeta[], metas: ReadonlyArray<{ shape: readonly number[]; dtype: DType }>, attrs: OpAttrs[N]): Built<N> {
  const outputs: Array<TensorMeta & { readonly device: Device }> = new Array(metas.length);
  const outs: TensorMeta[] = new Array<TensorMeta>(metas.length);
  for (let i = 0; i < metas.length; i++) {
    const m = metas[i]!;
    const id = ids.tensor();
    const shape = plainZeros(m.shape);
    outputs[i] = { id, shape, dtype: m.dtype, device };
    outs[i] = { id, shape, dtype: m.dtype };
  }
  const ins: TensorMeta[] = new Array<TensorMeta>(inputs.length);
  for (let i = 0; i < inputs.length; i++) {
    const x = inputs[i]!;
    ins[i] = { id: x.id, shape: x.shape, dtype: x.dtype };
  }
  // One record shape for every op; the union member is chosen by `op`.
  const record = { id: ids.op(), op, device: device.key, inputs: ins, outputs: outs, attrs } as OpRecord;
  return { record, outputs };
}

/** An op over inputs (all on `device`, or on their common device when `device` is omitted). */
export function buildOp<N extends OpName>(ids: IdAllocator, op: N, inputs: readonly BuilderInput[], attrs: OpAttrs[N], device?: Device): Built<N> {
  const d = commonDevice(op, inputs) ?? device;
  if (d === undefined) throw new DeviceError('an op without inputs needs a device', { op, devices: [] });
  // The generic pair becomes the union member its `op` names.
  const call = { op, attrs } as OpCall;
  return finish(ids, op, d, inputs, inferOutputs(call, inputs), attrs);
}

/** A creation op (no inputs): the caller says the output's shape and dtype. */
export function buildCreation<N extends OpName>(ids: IdAllocator, op: N, attrs: OpAttrs[N], shape: readonly number[], dtype: DType, device: Device): Built<N> {
  return finish(ids, op, device, [], [{ shape: [...shape], dtype }], attrs);
}

/** A move of `input` to another device: the record runs on the destination's lane. */
export function buildTransfer(ids: IdAllocator, input: BuilderInput, to: Device): Built<'transfer'> {
  return finish(ids, 'transfer', to, [input], [{ shape: input.shape, dtype: input.dtype }], { from: input.device.key, to: to.key });
}
