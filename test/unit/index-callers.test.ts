/**
 * Public functions built on gather / indexSelect / scatterAdd name themselves when the indices the
 * user gave are out of range (checked when the kernel runs): the error's op is the function called,
 * the message gives the exact index and bound and names the inner op; in-range calls are unchanged.
 * Run on the CPU (inline and on the worker pool), behind a Router, and on WebGPU (where an adapter is found).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Autodiff } from '../../src/autodiff/autodiff.js';
import type { Backend } from '../../src/backends/backend.js';
import { Cpu } from '../../src/backends/cpu/backend.js';
import { Wgpu } from '../../src/backends/wgpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { ArgumentError } from '../../src/errors.js';
import { luFactor, luSolve } from '../../src/linalg/index.js';
import * as NF from '../../src/nn/functional/index.js';
import * as nn from '../../src/nn/index.js';
import { Router } from '../../src/router/router.js';
import { fromData, zeros } from '../../src/tensor/creation.js';
import type { Tensor } from '../../src/tensor/tensor.js';
import { describeGpu, hasAdapter } from '../wgpu/gpu.js';

/** Reading `t` rejects with an ArgumentError whose op is `op` and whose message holds `message`. */
async function rejects(t: Tensor<Backend> | undefined, op: string, message: string | RegExp): Promise<ArgumentError> {
  expect(t).toBeDefined();
  const err = await t!.toData().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ArgumentError);
  const e = err as ArgumentError;
  expect(e.op).toBe(op);
  if (typeof message === 'string') expect(e.message).toContain(message);
  else expect(e.message).toMatch(message);
  expect(e.message).toContain('README, "Errors"');
  return e;
}

async function values(t: Tensor<Backend>): Promise<number[]> {
  return Array.from((await t.toData()).values, Number);
}

const ints = <B extends Backend>(b: B, shape: number[], v: number[]) => fromData(b, Int32Array.from(v), { shape });

function suite(name: string, make: () => Backend | Promise<Backend>): void {
  describe(`index errors name the public function (${name})`, () => {
    let b: Autodiff<Backend>;
    beforeAll(async () => {
      b = new Autodiff(await make());
    });
    afterAll(() => b.close());

    it('crossEntropy: a target past the classes, or negative, with and without class weights; its gradient too', async () => {
      const logits = zeros(b, [2, 10]).requireGrad();
      const e = await rejects(nn.crossEntropy(logits, ints(b, [2], [3, 12])), 'crossEntropy', 'crossEntropy: target 12 is out of range for 10 classes (in gather)');
      expect(e.hint).toContain('each target must be in [0, 9]');
      await rejects(nn.crossEntropy(logits, ints(b, [2], [-1, 0])), 'crossEntropy', 'target -1 is out of range for 10 classes');
      const weight = fromData(b, new Float32Array(10).fill(1));
      await rejects(nn.crossEntropy(logits, ints(b, [2], [3, 10]), { weight }), 'crossEntropy', /target 10 is out of range for 10 classes \(in (gather|indexSelect)\)/);
      // Classes on dim 1 of [N, C, d]: the bound is still the class count.
      await rejects(nn.crossEntropy(zeros(b, [1, 4, 3]), ints(b, [1, 3], [0, 1, 4])), 'crossEntropy', 'target 4 is out of range for 4 classes');
      // The backward's scatterAdd reads the same targets and names the loss too.
      const grads = nn.crossEntropy(logits, ints(b, [2], [3, 12])).backward();
      await rejects(logits.grad(grads), 'crossEntropy', 'target 12 is out of range for 10 classes (in scatterAdd)');
      // In range (and ignoreIndex) unchanged: log(10) per kept sample.
      expect((await values(nn.crossEntropy(logits, ints(b, [2], [3, 9]))))[0]).toBeCloseTo(Math.log(10), 5);
      expect((await values(nn.crossEntropy(logits, ints(b, [2], [-100, 9]))))[0]).toBeCloseTo(Math.log(10), 5);
      expect((await values(nn.crossEntropy(logits, ints(b, [2], [7, 12]), { ignoreIndex: 12 })))[0]).toBeCloseTo(Math.log(10), 5);
    });

    it('nllLoss and multiMarginLoss', async () => {
      const logp = zeros(b, [2, 5]).requireGrad();
      await rejects(nn.nllLoss(logp, ints(b, [2], [5, 0])), 'nllLoss', 'nllLoss: target 5 is out of range for 5 classes (in gather)');
      const grads = nn.nllLoss(logp, ints(b, [2], [0, 7])).backward();
      await rejects(logp.grad(grads), 'nllLoss', 'target 7 is out of range for 5 classes (in scatterAdd)');
      expect(await values(nn.nllLoss(logp, ints(b, [2], [4, 0])))).toEqual([0]);
      const x = zeros(b, [2, 4]);
      await rejects(nn.multiMarginLoss(x, ints(b, [2], [1, 7])), 'multiMarginLoss', /multiMarginLoss: target 7 is out of range for 4 classes \(in (gather|scatterAdd)\)/);
      await rejects(nn.multiMarginLoss(x, ints(b, [2], [-2, 0]), { weight: fromData(b, [1, 1, 1, 1]) }), 'multiMarginLoss', /target -2 is out of range for 4 classes/);
      expect((await values(nn.multiMarginLoss(x, ints(b, [2], [1, 3]))))[0]).toBeCloseTo(0.75, 6);
    });

    it('oneHot', async () => {
      const e = await rejects(ints(b, [3], [0, 5, 1]).oneHot(3), 'oneHot', 'oneHot: index 5 is out of range for 3 classes (in scatterAdd)');
      expect(e.hint).toContain('each index must be in [0, 2]');
      expect(await values(ints(b, [2], [2, 0]).oneHot(3))).toEqual([0, 0, 1, 1, 0, 0]);
    });

    it('Embedding (with maxNorm too, and its gradient), embeddingBag and EmbeddingBag', async () => {
      const emb = new nn.Embedding(b, 5, 3);
      await rejects(emb.forward(ints(b, [1, 2], [0, 6])), 'Embedding', 'Embedding: index 6 is out of range for 5 embeddings (in indexSelect)');
      const out = emb.forward(ints(b, [2], [4, -1]));
      await rejects(out, 'Embedding', 'index -1 is out of range for 5 embeddings');
      await rejects(emb.weight.value.grad(out.sum().backward()), 'Embedding', 'index -1 is out of range for 5 embeddings (in scatterAdd)');
      expect((await emb.forward(ints(b, [2], [4, 0])).toData()).shape).toEqual([2, 3]);
      const renormed = new nn.Embedding(b, 5, 3, { maxNorm: 1 });
      await rejects(renormed.forward(ints(b, [1], [9])), 'Embedding', /index 9 is out of range for 5 embeddings \(in (indexSelect|scatterAdd)\)/);
      const w = zeros(b, [4, 2]);
      await rejects(NF.embeddingBag(ints(b, [2, 2], [0, 1, 2, 4]), w), 'embeddingBag', 'embeddingBag: index 4 is out of range for 4 embeddings (in indexSelect)');
      const bag = new nn.EmbeddingBag(b, 4, 2, { mode: 'sum' });
      await rejects(bag.forward(ints(b, [3], [0, 7, 1]), ints(b, [2], [0, 1])), 'embeddingBag', 'index 7 is out of range for 4 embeddings');
      expect(await values(NF.embeddingBag(ints(b, [1, 2], [0, 3]), w))).toEqual([0, 0]);
    });

    it('maxUnpool2d / maxUnpool1d (and their modules): the bound is the output plane', async () => {
      const x = fromData(b, [1, 2, 3, 4], { shape: [1, 1, 2, 2] }).requireGrad();
      const bad = NF.maxUnpool2d(x, ints(b, [1, 1, 2, 2], [0, 3, 8, 30]), 2);
      await rejects(bad, 'maxUnpool2d', 'maxUnpool2d: index 30 is out of range for 16 positions in an output plane (in scatterAdd)');
      await rejects(x.grad(bad.sum().backward()), 'maxUnpool2d', 'index 30 is out of range for 16 positions in an output plane (in gather)');
      await rejects(new nn.MaxUnpool2d(2).forward(x, ints(b, [1, 1, 2, 2], [0, 3, -1, 15])), 'maxUnpool2d', 'index -1 is out of range for 16 positions');
      await rejects(new nn.MaxUnpool1d(2).forward(fromData(b, [1, 2], { shape: [1, 2] }), ints(b, [1, 2], [1, 4])), 'maxUnpool1d', 'maxUnpool1d: index 4 is out of range for 4 positions in an output plane');
      expect(await values(NF.maxUnpool2d(x, ints(b, [1, 1, 2, 2], [0, 3, 8, 15]), 2))).toEqual([1, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 4]);
    });

    it('take and takeAlongDim: the index as given (negative ones too)', async () => {
      const x = fromData(b, [[1, 2, 3], [4, 5, 6]]);
      const e = await rejects(x.take(ints(b, [2], [0, 7])), 'take', 'take: index 7 is out of range for 6 elements (in gather)');
      expect(e.hint).toContain('each index must be in [-6, 5]');
      await rejects(x.take(ints(b, [2], [-7, 0])), 'take', 'index -7 is out of range for 6 elements');
      expect(await values(x.take(ints(b, [3], [-1, -6, 2])))).toEqual([6, 1, 3]);
      await rejects(x.takeAlongDim(ints(b, [2], [6, 0])), 'takeAlongDim', 'takeAlongDim: index 6 is out of range for 6 elements (in gather)');
      await rejects(x.takeAlongDim(ints(b, [1, 1], [3]), 1), 'takeAlongDim', 'takeAlongDim: index 3 is out of range for dim 1 of size 3 (in gather)');
      expect(await values(x.takeAlongDim(ints(b, [2, 1], [2, 0]), 1))).toEqual([3, 4]);
    });

    it('indexAdd, scatter and scatterReduce', async () => {
      const x = zeros(b, [3, 2]);
      await rejects(x.indexAdd(0, ints(b, [2], [0, 3]), fromData(b, [[1, 1], [1, 1]])), 'indexAdd', 'indexAdd: index 3 is out of range for dim 0 of size 3 (in scatterAdd)');
      expect(await values(x.indexAdd(0, ints(b, [2], [2, 2]), fromData(b, [[1, 2], [3, 4]])))).toEqual([0, 0, 0, 0, 4, 6]);
      const y = zeros(b, [2, 3]);
      await rejects(y.scatter(1, ints(b, [1, 2], [0, 4]), 1), 'scatter', /scatter: index 4 is out of range for dim 1 of size 3 \(in (gather|scatterAdd)\)/);
      await rejects(y.scatter(1, ints(b, [1, 1], [-1]), fromData(b, [[5]])), 'scatter', 'index -1 is out of range for dim 1 of size 3');
      expect(await values(y.scatter(1, ints(b, [1, 1], [2]), fromData(b, [[5]])))).toEqual([0, 0, 5, 0, 0, 0]);
      const src = fromData(b, [[1, 2]]);
      await rejects(y.scatterReduce(1, ints(b, [1, 2], [0, 3]), src, 'sum'), 'scatterReduce', 'scatterReduce: index 3 is out of range for dim 1 of size 3 (in scatterAdd)');
      await rejects(y.scatterReduce(1, ints(b, [1, 2], [0, 5]), src, 'amax'), 'scatterReduce', 'index 5 is out of range for dim 1 of size 3');
      expect(await values(y.scatterReduce(1, ints(b, [1, 2], [1, 1]), src, 'amax'))).toEqual([0, 2, 0, 0, 0, 0]);
    });

    it('luSolve: a pivot outside [1, n], shown 1-based', async () => {
      const { LU, pivots } = luFactor(fromData(b, [[1, 2], [3, 4]]));
      const rhs = fromData(b, [[1], [2]]);
      const e = await rejects(luSolve(LU, ints(b, [2], [3, 2]), rhs), 'luSolve', 'luSolve: pivot 3 is out of range for 2 rows (in gather)');
      expect(e.hint).toContain('each pivot must be in [1, 2]');
      await rejects(luSolve(LU, ints(b, [2], [2, 0]), rhs), 'luSolve', 'pivot 0 is out of range for 2 rows');
      const sol = await values(luSolve(LU, pivots, rhs));
      expect(sol[0]).toBeCloseTo(0, 5);
      expect(sol[1]).toBeCloseTo(0.5, 5);
    });

    it('the index ops called directly keep their own names, after a caller returned or threw', async () => {
      const x = zeros(b, [2, 3]);
      expect(() => nn.crossEntropy(x, ints(b, [3], [0, 0, 0]))).toThrow(/class-index targets must be \[2\]/);
      void nn.crossEntropy(x, ints(b, [2], [0, 1]));
      const err = await x.gather(1, ints(b, [2, 1], [0, 3])).toData().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ArgumentError);
      expect((err as ArgumentError).op).toBe('gather');
      expect((err as ArgumentError).message).toBe('gather: index 3 is out of range for dim 1 of size 3; hint: indices along dim 1 must be in [0, 2]');
    });
  });
}

suite('Cpu', () => new Cpu({ threads: 0 }));
// The worker pool's path: indices are checked before the op is handed to a worker.
suite('Cpu pool', () => new Cpu({ threads: 2, inlineThreshold: 0 }));
suite('Router', () => new Router([new Cpu({ threads: 0, device: CpuDevice.named('cpu:a') }), new Cpu({ threads: 0, device: CpuDevice.named('cpu:b') })]));
if (hasAdapter) suite('Wgpu', () => Wgpu.create());
else describeGpu('index errors name the public function (Wgpu)', () => {});
