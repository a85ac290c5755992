/**
 * A tour of the math, reduction, ordering, padding and attention ops, printed like PyTorch.
 * Run with `npx tsx examples/ops-tour.ts` (add `--device wgpu` for the WebGPU backend).
 */
import { Cpu } from '../src/backends/cpu/backend.js';
import { Wgpu } from '../src/backends/wgpu/backend.js';
import { Distribution, einsum, eye, fromData, linspace, nn, random, scaledDotProductAttention } from '../src/index.js';

const gpu = process.argv.includes('--device') && process.argv[process.argv.indexOf('--device') + 1] === 'wgpu';
const b = gpu ? await Wgpu.create() : new Cpu();
b.seed(0);

const x = fromData(b, [[-1.5, -0.5, 0.5, 2.5], [NaN, Infinity, -0.25, 3]]);
console.log('round (half to even):', await x.round().format());
console.log('frac:', await x.frac().format());
console.log('softplus:', await x.softplus().format());
console.log('atan2(x, -1):', await x.atan2(-1).format());
console.log('logaddexp(x, 0):', await x.logaddexp(0).format());

const y = fromData(b, [[3, 1, 2, 1], [0, 5, -1, 4]]);
console.log('var over all (correction 1):', await y.var().format());
console.log('std(dim 1, correction 0):', await y.std(1, { correction: 0 }).format());
console.log('sum over dims [0, 1], keepDims:', await y.sum([0, 1], true).format());
console.log('logsumexp(dim 1):', await y.logsumexp(1).format());
const { values, indices } = y.maxWithIndices(1);
console.log('max(dim 1):', await values.format(), await indices.format());
console.log('any(y > 4, dim 1):', await y.greater(4).any(1).format());

console.log('cumsum(dim 1):', await y.cumsum(1).format());
const s = y.sort(1, true);
console.log('sort descending (stable):', await s.values.format(), await s.indices.format());
const t = x.topk(2);
console.log('topk(2) (NaN is the largest):', await t.values.format(), await t.indices.format());
console.log('roll([1], [1]):', await y.roll(1, 1).format());
console.log('flip(0):', await y.flip(0).format());

console.log('tril(ones 3x3):', await eye(b, 3).add(1).tril().format());
console.log('linspace(0, 1, 5):', await linspace(b, 0, 1, 5).format());
console.log('oneHot([2, 0], 3):', await fromData(b, Int32Array.from([2, 0])).oneHot(3).format());
const img = fromData(b, [[1, 2, 3], [4, 5, 6]]);
console.log("pad([2, 1], 'reflect'):", await img.pad([2, 1], 'reflect').format());
console.log("pad([1, 1, 1, 0], 'constant', -1):", await img.pad([1, 1, 1, 0], 'constant', -1).format());

const m = fromData(b, [[3, -4], [0, 0]]);
console.log('norm(2, dim 1):', await m.norm(2, 1).format());
console.log('norm(Infinity), norm(0):', await m.norm(Infinity).format(), await m.norm(0).format());
console.log("einsum('ij,jk->ik') (matmul):", await einsum('ij,jk->ik', y, y.transpose()).format());
console.log("einsum('ii') (trace):", await einsum('ii', m).format());
console.log('normalize(dim 1):', await nn.functional.normalize(m).format());
console.log("interpolate(size 4, 'linear'):", await nn.functional.interpolate(fromData(b, [[[0, 1, 2]]]), { size: 4, mode: 'linear' }).format());

// reductions, indexing and shape ops beyond the core set
const r = fromData(b, [[1, 3, 3, NaN], [2, 0, 1, 1]]);
console.log('medianWithIndices(1) (lower median; NaN wins):', await r.medianWithIndices(1).values.format());
console.log('cummax(1) indices (last of ties):', await r.cummax(1).indices.format());
console.log('nansum(1):', await r.nansum(1).format());
console.log('logcumsumexp of [-200, 0, 100]:', await fromData(b, [-200, 0, 100]).logcumsumexp(0).format());
const at = fromData(b, Int32Array.from([1, 1, 0, 3, 3, 3]), { shape: [2, 3] });
console.log("scatterReduce(1, index, src, 'amax', false):", await eye(b, 2, 4).scatterReduce(1, at, fromData(b, [[5, 7, 2], [1, 4, 9]]), 'amax', false).format());
console.log('diag([1, 2], 1):', await fromData(b, [1, 2]).diag(1).format());
console.log('nonzero (async):', await (await r.nonzero()).format());
const u = await fromData(b, [3, 1, 3, 2]).unique({ returnCounts: true });
console.log('unique (async), counts:', await u.values.format(), await u.counts!.format());

const q = random(b, [1, 4, 8], Distribution.Normal(0, 1));
const k = random(b, [1, 4, 8], Distribution.Normal(0, 1));
const v = random(b, [1, 4, 2], Distribution.Normal(0, 1));
console.log('causal attention [1, 4, 2]:', await scaledDotProductAttention(q, k, v, { isCausal: true }).format());
await b.close();
