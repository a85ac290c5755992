/**
 * What the nn groups' adapters share: torch's argument names mapped to ours, and a module case
 * (the case's state dict loaded, then run). Not a test file: the group test files import it.
 */
import * as NF from '../../src/nn/functional/index.js';
import * as nn from '../../src/nn/index.js';
import { a, load, type AD, type Ctx, type F } from './harness.js';

/** torch's argument names -> ours, for the keys a case has. */
export function renamed(x: Ctx, names: ReadonlyArray<readonly [string, string]>): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  for (const [k, ours] of names) if (x.args[k] !== undefined) o[ours] = x.args[k];
  return o;
}

export const POOL_ARGS = [['stride', 'stride'], ['padding', 'padding'], ['dilation', 'dilation'], ['ceil_mode', 'ceilMode'], ['count_include_pad', 'countIncludePad'], ['divisor_override', 'divisorOverride']] as const;
export const CONV_ARGS = [['stride', 'stride'], ['padding', 'padding'], ['dilation', 'dilation'], ['groups', 'groups'], ['output_padding', 'outputPadding']] as const;

export const poolOptions = (x: Ctx): NF.MaxPool2dOptions & NF.AvgPool2dOptions => renamed(x, POOL_ARGS);
/** The functional convolutions' options (bias an input). */
export const convOptions = (x: Ctx): Record<string, unknown> => ({ bias: x.t['bias'], ...renamed(x, CONV_ARGS) });
/** The convolution modules' options (bias a flag). */
export const convLayerOptions = (x: Ctx): Record<string, unknown> => ({ bias: a.bool(x, 'bias') ?? true, ...renamed(x, [...CONV_ARGS, ['padding_mode', 'paddingMode']]) });

/** A module case: the case's state dict into `m`, then `run`'s outputs. */
export function moduleCase(x: Ctx, m: nn.Module<AD>, run: () => F | F[]): { outputs: F[]; module: nn.Module<AD> } {
  load(m, x.c);
  const y = run();
  return { outputs: Array.isArray(y) ? y : [y], module: m };
}

/** nn.MultiheadAttention with the case's options; its output (and the attention weights with `needWeights`). */
export function multiheadAttention(x: Ctx, needWeights: boolean): { outputs: F[]; module: nn.Module<AD> } {
  const kdim = a.num(x, 'kdim');
  const vdim = a.num(x, 'vdim');
  const m = new nn.MultiheadAttention(x.b, a.num(x, 'embed_dim')!, a.num(x, 'num_heads')!, {
    bias: a.bool(x, 'bias') ?? true,
    batchFirst: a.bool(x, 'batch_first') ?? true,
    addBiasKv: a.bool(x, 'add_bias_kv') ?? false,
    addZeroAttn: a.bool(x, 'add_zero_attn') ?? false,
    ...(kdim === undefined ? {} : { kdim }),
    ...(vdim === undefined ? {} : { vdim }),
  });
  return moduleCase(x, m, () => {
    const q = x.t['query']!;
    const call = { keyPaddingMask: x.bool['key_padding_mask'] ?? x.t['key_padding_mask'], attnMask: x.t['attn_mask'] ?? x.bool['attn_mask'], averageAttnWeights: a.bool(x, 'average_attn_weights') ?? true };
    const k = x.t['key'] ?? q;
    const v = x.t['value'] ?? k;
    if (needWeights) {
      const y = m.forwardWithWeights(q, k, v, call);
      return [y.output, y.weights];
    }
    return m.forward(q, k, v, call);
  });
}
