/** conv1d / conv2d / convTranspose1d / convTranspose2d against direct float64 loops, with finite-difference gradients. */
import { afterAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../../src/autodiff/autodiff.js';
import { Cpu } from '../../../src/backends/cpu/backend.js';
import { ArgumentError, ShapeError, SwitchyardError } from '../../../src/errors.js';
import { conv1d, conv2d, convTranspose1d, convTranspose2d } from '../../../src/nn/functional/conv.js';
import { CpuDevice } from '../../../src/devices/cpu.js';
import { Router } from '../../../src/router/router.js';
import { zeros } from '../../../src/tensor/creation.js';
import { makeWgpu } from '../../autodiff/backends.js';
import { checkCase, type AD, type FnCase } from '../check.js';
import { conv2dRef, convTranspose2dRef, type Nd } from '../conv-ref.js';

const cpu = new Autodiff(new Cpu({ threads: 0 }));
const routed = new Autodiff(new Router([new Cpu({ threads: 0, device: CpuDevice.named('cpu:a') }), new Cpu({ threads: 0, device: CpuDevice.named('cpu:b') })]));
const wgpuInner = await makeWgpu();
const wgpu = wgpuInner ? new Autodiff(wgpuInner) : undefined;
afterAll(async () => {
  await cpu.close();
  await routed.close();
  await wgpuInner?.close();
});

/** [N, C, L] as [N, C, 1, L] and back. */
const as2d = (t: Nd): Nd => ({ shape: [t.shape[0]!, t.shape[1]!, 1, t.shape[2]!], data: t.data });
const as1d = (t: Nd): Nd => ({ shape: [t.shape[0]!, t.shape[1]!, t.shape[3]!], data: t.data });

const CASES: FnCase[] = [
  {
    name: 'conv2d 3x3 with bias',
    shapes: [[2, 3, 5, 6], [4, 3, 3, 3], [4]],
    run: ([x, w, b]) => conv2d(x!, w!, { bias: b! }),
    ref: ([x, w, b]) => conv2dRef(x!, w!, { bias: b! }),
  },
  {
    name: 'conv2d stride 2, padding 1',
    shapes: [[2, 2, 7, 6], [3, 2, 3, 3]],
    run: ([x, w]) => conv2d(x!, w!, { stride: 2, padding: 1 }),
    ref: ([x, w]) => conv2dRef(x!, w!, { stride: [2, 2], pads: [1, 1, 1, 1] }),
  },
  {
    name: "conv2d padding 'same' with an even kernel and dilation (odd pixel bottom / right)",
    shapes: [[1, 2, 6, 7], [2, 2, 3, 2]],
    run: ([x, w]) => conv2d(x!, w!, { padding: 'same', dilation: [2, 1] }),
    ref: ([x, w]) => conv2dRef(x!, w!, { dilation: [2, 1], pads: [2, 2, 0, 1] }),
  },
  {
    name: "conv2d padding 'valid'",
    shapes: [[1, 1, 4, 5], [2, 1, 2, 3]],
    run: ([x, w]) => conv2d(x!, w!, { padding: 'valid' }),
    ref: ([x, w]) => conv2dRef(x!, w!),
  },
  {
    name: 'conv2d groups 2, stride [1, 2], padding [1, 0]',
    shapes: [[2, 4, 5, 5], [6, 2, 3, 3], [6]],
    run: ([x, w, b]) => conv2d(x!, w!, { bias: b!, groups: 2, stride: [1, 2], padding: [1, 0] }),
    ref: ([x, w, b]) => conv2dRef(x!, w!, { bias: b!, groups: 2, stride: [1, 2], pads: [1, 1, 0, 0] }),
  },
  {
    name: 'conv2d depthwise (groups = channels, multiplier 2)',
    shapes: [[1, 3, 5, 5], [6, 1, 3, 3]],
    run: ([x, w]) => conv2d(x!, w!, { groups: 3, padding: 1 }),
    ref: ([x, w]) => conv2dRef(x!, w!, { groups: 3, pads: [1, 1, 1, 1] }),
  },
  {
    name: 'conv2d dilation 2, padding 2, stride 2',
    shapes: [[1, 2, 7, 7], [2, 2, 3, 3]],
    run: ([x, w]) => conv2d(x!, w!, { dilation: 2, padding: 2, stride: 2 }),
    ref: ([x, w]) => conv2dRef(x!, w!, { dilation: [2, 2], pads: [2, 2, 2, 2], stride: [2, 2] }),
  },
  {
    name: 'conv2d 1x1',
    shapes: [[2, 3, 3, 2], [5, 3, 1, 1]],
    run: ([x, w]) => conv2d(x!, w!),
    ref: ([x, w]) => conv2dRef(x!, w!),
  },
  {
    name: 'conv2d unbatched [C, H, W]',
    shapes: [[2, 4, 4], [3, 2, 2, 2]],
    run: ([x, w]) => conv2d(x!, w!, { padding: 1 }),
    ref: ([x, w]) => {
      const y = conv2dRef({ shape: [1, ...x!.shape], data: x!.data }, w!, { pads: [1, 1, 1, 1] });
      return { shape: y.shape.slice(1), data: y.data };
    },
  },
  {
    name: 'conv1d stride 2, padding 1, bias',
    shapes: [[2, 3, 9], [4, 3, 3], [4]],
    run: ([x, w, b]) => conv1d(x!, w!, { bias: b!, stride: 2, padding: 1 }),
    ref: ([x, w, b]) => as1d(conv2dRef(as2d(x!), { shape: [4, 3, 1, 3], data: w!.data }, { bias: b!, stride: [1, 2], pads: [0, 0, 1, 1] })),
  },
  {
    name: "conv1d padding 'same', dilation 2, groups 3",
    shapes: [[1, 3, 8], [6, 1, 3]],
    run: ([x, w]) => conv1d(x!, w!, { padding: 'same', dilation: 2, groups: 3 }),
    ref: ([x, w]) => as1d(conv2dRef(as2d(x!), { shape: [6, 1, 1, 3], data: w!.data }, { dilation: [1, 2], groups: 3, pads: [0, 0, 2, 2] })),
  },
  {
    name: 'convTranspose2d stride 2, padding 1, outputPadding 1, bias',
    shapes: [[2, 3, 4, 3], [3, 2, 3, 3], [2]],
    run: ([x, w, b]) => convTranspose2d(x!, w!, { bias: b!, stride: 2, padding: 1, outputPadding: 1 }),
    ref: ([x, w, b]) => convTranspose2dRef(x!, w!, { bias: b!, stride: [2, 2], padding: [1, 1], outputPadding: [1, 1] }),
  },
  {
    name: 'convTranspose2d groups 2, dilation 2',
    shapes: [[1, 4, 3, 3], [4, 3, 2, 2]],
    run: ([x, w]) => convTranspose2d(x!, w!, { groups: 2, dilation: 2 }),
    ref: ([x, w]) => convTranspose2dRef(x!, w!, { groups: 2, dilation: [2, 2] }),
  },
  {
    name: 'convTranspose2d stride [1, 3], padding [0, 1]',
    shapes: [[1, 2, 3, 4], [2, 2, 2, 3]],
    run: ([x, w]) => convTranspose2d(x!, w!, { stride: [1, 3], padding: [0, 1] }),
    ref: ([x, w]) => convTranspose2dRef(x!, w!, { stride: [1, 3], padding: [0, 1] }),
  },
  {
    name: 'convTranspose1d stride 3, padding 1',
    shapes: [[2, 2, 5], [2, 3, 3]],
    run: ([x, w]) => convTranspose1d(x!, w!, { stride: 3, padding: 1 }),
    ref: ([x, w]) => as1d(convTranspose2dRef(as2d(x!), { shape: [2, 3, 1, 3], data: w!.data }, { stride: [1, 3], padding: [0, 1] })),
  },
];

describe('convolutions on autodiff<cpu>', () => {
  it.each(CASES.map((c, i) => [c.name, c, i] as const))('%s', async (_name, c, i) => {
    await checkCase(cpu, c, 100 + i);
  });
});

describe('convolutions through a Router (autodiff<router<cpu, cpu>>)', () => {
  for (const i of [4, 11]) {
    it(CASES[i]!.name, async () => {
      await checkCase(routed, CASES[i]!, 100 + i);
    });
  }
});

// lavapipe is slow: a few cases cover the WebGPU path (the same ops as on the CPU).
describe.runIf(wgpu !== undefined)('convolutions on autodiff<wgpu>', () => {
  for (const i of [4, 11]) {
    it(CASES[i]!.name, async () => {
      await checkCase(wgpu!, CASES[i]!, 100 + i);
    });
  }
});

describe('convolution errors', () => {
  const t = (shape: number[]) => zeros(cpu, shape);
  const fails = (f: () => unknown, type: typeof SwitchyardError, ...parts: string[]) => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(type);
      for (const p of parts) expect((e as Error).message).toContain(p);
      return;
    }
    throw new Error('expected an error');
  };

  it('a kernel larger than the padded input names the op, both shapes and the sizes', () => {
    fails(() => conv2d(t([1, 1, 3, 3]), t([1, 1, 5, 5])), ShapeError, 'conv2d', '[1, 1, 3, 3]', '[1, 1, 5, 5]', '5x5', '3x3');
    fails(() => conv1d(t([1, 1, 4]), t([1, 1, 3]), { dilation: 2 }), ShapeError, 'conv1d', 'span');
    conv2d(t([1, 1, 3, 3]), t([1, 1, 5, 5]), { padding: 1 }).dispose();
  });

  it('a bad padding mode, a strided same, bad strides', () => {
    fails(() => conv2d(t([1, 1, 5, 5]), t([1, 1, 3, 3]), { padding: 'full' as never }), ArgumentError, "unknown padding mode 'full'");
    fails(() => conv2d(t([1, 1, 5, 5]), t([1, 1, 3, 3]), { padding: 'same', stride: 2 }), ArgumentError, "'same' needs stride 1");
    fails(() => conv2d(t([1, 1, 5, 5]), t([1, 1, 3, 3]), { stride: 0 }), ArgumentError, 'stride');
    fails(() => conv2d(t([1, 1, 5, 5]), t([1, 1, 3, 3]), { padding: -1 }), ArgumentError, 'padding');
  });

  it('groups that do not divide the channels, and channel mismatches', () => {
    fails(() => conv2d(t([1, 3, 5, 5]), t([4, 1, 3, 3]), { groups: 2 }), ShapeError, 'conv2d', 'groups 2', 'input channels (3)');
    fails(() => conv2d(t([1, 4, 5, 5]), t([3, 2, 3, 3]), { groups: 2 }), ShapeError, 'output channels (3)');
    fails(() => conv2d(t([1, 3, 5, 5]), t([4, 2, 3, 3])), ShapeError, 'the input has 3 channels, the weight expects 2');
    fails(() => conv2d(t([1, 4, 5, 5]), t([4, 2, 3, 3]), { groups: 0 }), ArgumentError, 'groups must be a positive integer');
    fails(() => convTranspose2d(t([1, 3, 5, 5]), t([4, 2, 3, 3])), ShapeError, 'convTranspose2d', 'expects 4');
  });

  it('wrong ranks, a wrong bias, a too large output padding', () => {
    fails(() => conv2d(t([5, 5]), t([1, 1, 3, 3])), ShapeError, 'conv2d', 'rank 3 or 4');
    fails(() => conv2d(t([1, 1, 5, 5]), t([1, 3, 3])), ShapeError, 'the weight must be');
    fails(() => conv2d(t([1, 1, 5, 5]), t([2, 1, 3, 3]), { bias: t([3]) }), ShapeError, 'bias must be [2]');
    fails(() => convTranspose2d(t([1, 1, 3, 3]), t([1, 1, 3, 3]), { stride: 2, outputPadding: 2 }), ArgumentError, 'outputPadding');
    fails(() => conv2d(zeros(cpu, [1, 1, 3, 3], { dtype: 'int32' }) as never, t([1, 1, 1, 1])), SwitchyardError, 'float32');
  });
});
