/** Non-contiguous inputs, empty tensors, rank 0, and NaN / infinity propagation. */
import type { Backend } from '../../../src/backends/backend.js';
import { Tensor } from '../../../src/tensor/tensor.js';
import { ARITH, EXACT, TRANS, accTol, type Tol } from '../harness.js';
import * as R from '../ref.js';
import type { Arr } from '../ref.js';
import { Rng } from '../rng.js';
import { matmulCase } from './matmul.js';
import { reduceCase, softmaxCase } from './reduce.js';
import { bt, ex, f32, ft, it, randB, randF, randI, value, type Case, type FT } from './util.js';

/** Views feeding elementwise, reduction, matmul and softmax ops. */
function nonContiguous(out: Case[]): void {
  const rng = new Rng('noncontig');
  const P = randF(rng, [3, 4, 2], -3, 3); // permuted [2,0,1] -> [2,3,4]
  const pView = R.permute(P, [2, 0, 1]);
  const S = randF(rng, [6, 9], -3, 3); // sliced with steps -> [3,4]
  const sSpec: R.PySlice[] = [{ start: 1, step: 2 }, { start: 0, stop: 8, step: 2 }];
  const sView = R.slice(S, sSpec);
  const sApi = (x: FT) => x.slice([{ start: 1, step: 2 }, { start: 0, end: 8, step: 2 }]);
  const E = randF(rng, [1, 4], -3, 3); // expanded -> [3,4]
  const eView = R.broadcastTo(E, [3, 4]);
  const T = randF(rng, [4, 3], -3, 3); // transposed -> [3,4]
  const tView = R.permute(T, [1, 0]);
  const Y = randF(rng, [2, 3, 4], -3, 3);
  const y4 = randF(rng, [3, 4], -3, 3);

  const v = (name: string, op: string, tol: Tol, build: (b: Backend) => Tensor<Backend> | readonly Tensor<Backend>[], want: () => Arr, dtype: 'float32' | 'int32' | 'bool' = 'float32') =>
    out.push(value(`${name} (non-contiguous)`, op, tol, build, () => ex(want(), dtype)));

  v('add permuted + contiguous', 'add', ARITH, (b) => ft(b, P).permute([2, 0, 1]).add(ft(b, Y)), () => R.map([pView, Y], (a, c) => a + c));
  v('add contiguous + permuted', 'add', ARITH, (b) => ft(b, Y).add(ft(b, P).permute([2, 0, 1])), () => R.map([Y, pView], (a, c) => a + c));
  v('mul stepped slice * expanded', 'mul', ARITH, (b) => sApi(ft(b, S)).mul(ft(b, E).expand([3, 4])), () => R.map([sView, eView], (a, c) => a * c));
  v('sub transposed - stepped slice', 'sub', ARITH, (b) => ft(b, T).transpose().sub(sApi(ft(b, S))), () => R.map([tView, sView], (a, c) => a - c));
  v('div permuted broadcast against stepped slice', 'div', ARITH, (b) => ft(b, P).permute([2, 0, 1]).div(sApi(ft(b, S)).abs().add(1)), () => R.map([pView, R.map([sView], (x) => Math.abs(x) + 1)], (a, c) => a / c));
  v('maximum expanded vs transposed', 'maximum', EXACT, (b) => ft(b, E).expand([3, 4]).maximum(ft(b, T).transpose()), () => R.map([eView, tView], R.maximumF));
  v('add scalar to a stepped slice', 'add', ARITH, (b) => sApi(ft(b, S)).add(2.5), () => R.map([sView], (x) => x + 2.5));
  v('exp of permuted', 'exp', TRANS, (b) => ft(b, P).permute([2, 0, 1]).exp(), () => R.map([pView], Math.exp));
  v('tanh of stepped slice', 'tanh', TRANS, (b) => sApi(ft(b, S)).tanh(), () => R.map([sView], Math.tanh));
  v('neg of expanded', 'neg', EXACT, (b) => ft(b, E).expand([3, 4]).neg(), () => R.map([eView], (x) => -x));
  v('greater permuted vs stepped slice', 'greater', EXACT, (b) => ft(b, T).transpose().greater(sApi(ft(b, S))), () => R.map([tView, sView], (a, c) => (a > c ? 1 : 0)), 'bool');
  v('clamp stepped slice', 'clamp', EXACT, (b) => sApi(ft(b, S)).clamp(-1, 1), () => R.map([sView], (x) => Math.min(Math.max(x, -1), 1)));
  v('cast permuted to int32', 'cast', EXACT, (b) => ft(b, P).permute([2, 0, 1]).cast('int32'), () => R.map([pView], R.truncToInt), 'int32');
  {
    const C = randB(rng, [4, 3]);
    v('where transposed cond, stepped x, expanded y', 'where', EXACT, (b) => sApi(ft(b, S)).where(bt(b, C).transpose(), ft(b, E).expand([3, 4])), () => R.map([R.permute(C, [1, 0]), sView, eView], (c, x, y) => (c ? x : y)));
  }
  v('sum permuted dim 1', 'sum', accTol(3), (b) => ft(b, P).permute([2, 0, 1]).sum(1), () => R.reduce(pView, 1, false, R.reducers.sum));
  v('sum permuted dim -1 keepDims', 'sum', accTol(4), (b) => ft(b, P).permute([2, 0, 1]).sum(-1, true), () => R.reduce(pView, -1, true, R.reducers.sum));
  v('max stepped slice dim 0', 'max', EXACT, (b) => sApi(ft(b, S)).max(0), () => R.reduce(sView, 0, false, R.reducers.max));
  v('argmax permuted over all (flat logical index)', 'argmax', EXACT, (b) => ft(b, P).permute([2, 0, 1]).argmax(), () => R.reduce(pView, null, false, R.reducers.argmax), 'int32');
  v('argmin transposed dim 1', 'argmin', EXACT, (b) => ft(b, T).transpose().argmin(1), () => R.reduce(tView, 1, false, R.reducers.argmin), 'int32');
  v('mean expanded over all', 'mean', accTol(12), (b) => ft(b, E).expand([3, 4]).mean(), () => R.reduce(eView, null, false, R.reducers.mean));
  v('prod transposed dim -1', 'prod', { abs: 1e-5, rel: 1e-5 }, (b) => ft(b, T).transpose().prod(-1), () => R.reduce(tView, -1, false, R.reducers.prod));
  v('min of expanded dim 0', 'min', EXACT, (b) => ft(b, E).expand([3, 4]).min(0), () => R.reduce(eView, 0, false, R.reducers.min));
  v('softmax permuted dim 0', 'softmax', { abs: 1e-6, rel: 1e-5 }, (b) => ft(b, P).permute([2, 0, 1]).softmax(0), () => R.softmax(pView, 0, false));
  v('softmax stepped slice last dim', 'softmax', { abs: 1e-6, rel: 1e-5 }, (b) => sApi(ft(b, S)).softmax(), () => R.softmax(sView, -1, false));
  v('logSoftmax expanded', 'logSoftmax', { abs: 1e-5, rel: 1e-5 }, (b) => ft(b, E).expand([3, 4]).logSoftmax(0), () => R.softmax(eView, 0, true));
  v('logSoftmax transposed dim 1', 'logSoftmax', { abs: 1e-5, rel: 1e-5 }, (b) => ft(b, T).transpose().logSoftmax(1), () => R.softmax(tView, 1, true));
  v('matmul transposed lhs', 'matmul', accTol(4), (b) => ft(b, T).transpose().matmul(ft(b, y4).transpose()), () => R.matmul(tView, R.permute(y4, [1, 0])));
  v('matmul stepped slice x expanded', 'matmul', accTol(4), (b) => sApi(ft(b, S)).matmul(ft(b, E).expand([3, 4]).transpose()), () => R.matmul(sView, R.permute(eView, [1, 0])));
  matmulCase(out, [1, 3, 5], [2, 5, 4], 'expanded batch lhs [1,3,5]->[2,3,5] (non-contiguous)', (b, a, c) => [ft(b, a).expand([2, 3, 5]), ft(b, c)]);
  {
    const A = randF(rng, [2, 5, 3]);
    const B2 = randF(rng, [4, 2, 5]);
    v('matmul permuted batch operands', 'matmul', accTol(5), (b) => ft(b, A).swapDims(1, 2).matmul(ft(b, B2).permute([1, 2, 0])), () => R.matmul(R.permute(A, [0, 2, 1]), R.permute(B2, [1, 2, 0])));
  }
  v('gather from permuted', 'gather', EXACT, (b) => ft(b, P).permute([2, 0, 1]).gather(2, it(b, R.arr([2, 3, 2], [0, 3, 1, 1, 2, 0, 3, 3, 0, 1, 2, 2]))), () => R.gather(pView, 2, R.arr([2, 3, 2], [0, 3, 1, 1, 2, 0, 3, 3, 0, 1, 2, 2])));
  v('indexSelect stepped slice', 'indexSelect', EXACT, (b) => sApi(ft(b, S)).indexSelect(1, it(b, R.arr([3], [3, 0, 3]))), () => R.indexSelect(sView, 1, [3, 0, 3]));
  v('cat transposed and stepped pieces', 'cat', EXACT, (b) => Tensor.cat([ft(b, T).transpose(), sApi(ft(b, S))], 0), () => R.cat([tView, sView], 0));
  v('sliceAssign into a transposed tensor', 'sliceAssign', EXACT, (b) => ft(b, T).transpose().sliceAssign([[1, 3], { step: 2 }], ft(b, E).reshape([2, 2])), () => R.sliceAssign(tView, [{ start: 1, stop: 3 }, { step: 2 }], R.reshape(E, [2, 2])));
  v('scatterAdd with permuted values', 'scatterAdd', { abs: 1e-6, rel: 1e-6 }, (b) => ft(b, y4).scatterAdd(0, it(b, R.arr([3, 4], [0, 1, 2, 0, 2, 2, 0, 1, 0, 0, 0, 0])), ft(b, T).transpose()), () => R.scatterAdd(y4, 0, R.arr([3, 4], [0, 1, 2, 0, 2, 2, 0, 1, 0, 0, 0, 0]), tView));
  {
    const Big = randF(rng, [300, 500], -3, 3);
    const Z = randF(rng, [500, 300], -3, 3);
    v('add large transposed [500,300]', 'add', ARITH, (b) => ft(b, Big).transpose().add(ft(b, Z)), () => R.map([R.permute(Big, [1, 0]), Z], (a, c) => a + c));
    v('sum large transposed dim 0', 'sum', accTol(500), (b) => ft(b, Big).transpose().sum(0), () => R.reduce(R.permute(Big, [1, 0]), 0, false, R.reducers.sum));
  }
  {
    // Views of views.
    const Q = randF(rng, [6, 5, 4], -3, 3);
    const qSlicePerm = R.slice(R.permute(Q, [2, 0, 1]), [{ start: 1, step: 2 }, { stop: -1 }, { start: 1, step: 3 }]);
    v('exp of a slice of a permuted tensor', 'exp', TRANS, (b) => ft(b, Q).permute([2, 0, 1]).slice([{ start: 1, step: 2 }, [null, -1], { start: 1, step: 3 }]).exp(), () => R.map([qSlicePerm], Math.exp));
    const q1 = R.slice(Q, [{ start: 2, stop: 3 }, { step: 2 }, {}]);
    v('add an expanded slice', 'add', ARITH, (b) => ft(b, Q).slice([[2, 3], { step: 2 }]).expand([4, 3, 4]).add(1), () => R.map([R.broadcastTo(q1, [4, 3, 4])], (x) => x + 1));
    const E3 = randF(rng, [1, 5, 1], -3, 3);
    v('sum of a permuted expanded tensor dim 0', 'sum', accTol(4), (b) => ft(b, E3).expand([3, 5, 4]).permute([2, 1, 0]).sum(0), () => R.reduce(R.permute(R.broadcastTo(E3, [3, 5, 4]), [2, 1, 0]), 0, false, R.reducers.sum));
    v('matmul of a permuted slice', 'matmul', accTol(5), (b) => ft(b, Q).slice([[0, 3]]).permute([0, 2, 1]).matmul(ft(b, Q).slice([[3, 6]])), () => R.matmul(R.permute(R.slice(Q, [{ stop: 3 }]), [0, 2, 1]), R.slice(Q, [{ start: 3 }])));
  }
  {
    // Large enough that the CPU backend splits them across its pool, rows cut mid-way.
    const L = randF(rng, [300, 501], -3, 3);
    const l1 = randF(rng, [501], -3, 3);
    out.push(value('add large broadcast [300,501]+[501]', 'add', ARITH, (b) => ft(b, L).add(ft(b, l1)), () => ex(R.map([L, l1], (a, c) => a + c))));
    const c1 = randB(rng, [300, 1]);
    out.push(value('where large broadcast cond [300,1]', 'where', EXACT, (b) => ft(b, L).where(bt(b, c1), ft(b, l1)), () => ex(R.map([c1, L, l1], (c, x, y) => (c ? x : y)))));
    const G = randF(rng, [1000, 8], -5, 5);
    softmaxCase(out, false, G, 0, 'long columns [1000,8]');
    softmaxCase(out, true, G, 0, 'long columns [1000,8]');
    const gi = randI(rng, [300, 400], 0, 500);
    out.push(value('gather large [300,501] dim 1 index [300,400]', 'gather', EXACT, (b) => ft(b, L).gather(1, it(b, gi)), () => ex(R.gather(L, 1, gi))));
    const sel = randI(rng, [700], 0, 299).data;
    out.push(value('indexSelect large [300,501] dim 0 with 700 indices', 'indexSelect', EXACT, (b) => ft(b, L).indexSelect(0, it(b, R.arr([700], sel))), () => ex(R.indexSelect(L, 0, sel))));
    out.push(value('cat large pieces dim 1', 'cat', EXACT, (b) => Tensor.cat([ft(b, L), ft(b, L).slice([null, [0, 7]])], 1), () => ex(R.cat([L, R.slice(L, [{}, { stop: 7 }])], 1))));
    const LI = randI(rng, [300, 501], -1000, 1000);
    out.push(value('int32 mul large', 'mul', EXACT, (b) => it(b, LI).mul(it(b, LI)), () => ex(R.map([LI, LI], R.intOps.mul), 'int32')));
  }
  {
    const I = randI(rng, [4, 3], -50, 50);
    v('int32 add transposed + expanded', 'add', EXACT, (b) => it(b, I).transpose().add(it(b, R.arr([4], [1, 2, 3, 4])).expand([3, 4])), () => R.map([R.permute(I, [1, 0]), R.arr([4], [1, 2, 3, 4])], R.intOps.add), 'int32');
  }
  softmaxCase(out, false, R.slice(randF(new Rng('sm view'), [4, 10], -4, 4), [{}, { start: 1, step: 3 }]), -1, 'stepped slice [4,10][:,1::3] (non-contiguous)', (b) => ft(b, randF(new Rng('sm view'), [4, 10], -4, 4)).slice([null, { start: 1, step: 3 }]));
  reduceCase(out, 'argmax', R.permute(randF(new Rng('am view'), [5, 4]), [1, 0]), 0, false, 'transposed [5,4] (non-contiguous)', (b) => ft(b, randF(new Rng('am view'), [5, 4])).transpose());
}

function empty(out: Case[]): void {
  const e = (n: readonly number[]): Arr => ({ shape: [...n], data: [] });
  const c = (name: string, op: string, tol: Tol, build: (b: Backend) => Tensor<Backend> | readonly Tensor<Backend>[], want: Arr, dtype: 'float32' | 'int32' | 'bool' = 'float32') =>
    out.push(value(`${name} (empty)`, op, tol, build, () => ex(want, dtype)));
  const b3 = randF(new Rng('empty b3'), [3]);
  c('add [0,3]+[0,3]', 'add', EXACT, (b) => ft(b, e([0, 3])).add(ft(b, e([0, 3]))), e([0, 3]));
  c('add [0,3]+[3] broadcast', 'add', EXACT, (b) => ft(b, e([0, 3])).add(ft(b, b3)), e([0, 3]));
  c('add [2,0]+[1,1]', 'add', EXACT, (b) => ft(b, e([2, 0])).add(ft(b, R.arr([1, 1], [1]))), e([2, 0]));
  c('mul [2,0] scalar', 'mul', EXACT, (b) => ft(b, e([2, 0])).mul(3), e([2, 0]));
  c('exp [0]', 'exp', EXACT, (b) => ft(b, e([0])).exp(), e([0]));
  c('equal [0,2]', 'equal', EXACT, (b) => ft(b, e([0, 2])).equal(ft(b, e([0, 2]))), e([0, 2]), 'bool');
  c('cast [0] to int32', 'cast', EXACT, (b) => ft(b, e([0])).cast('int32'), e([0]), 'int32');
  c('where [0,3]', 'where', EXACT, (b) => ft(b, e([0, 3])).where(bt(b, e([0, 1])), 1), e([0, 3]));
  c('sum [0,3] dim 0 is 0', 'sum', EXACT, (b) => ft(b, e([0, 3])).sum(0), R.arr([3], [0, 0, 0]));
  c('sum [0,3] dim 1', 'sum', EXACT, (b) => ft(b, e([0, 3])).sum(1), e([0]));
  c('sum [0,3] all is 0', 'sum', EXACT, (b) => ft(b, e([0, 3])).sum(), R.arr([], [0]));
  c('sum [0,3] dim 0 keepDims', 'sum', EXACT, (b) => ft(b, e([0, 3])).sum(0, true), R.arr([1, 3], [0, 0, 0]));
  c('sum int32 [0] is 0', 'sum', EXACT, (b) => it(b, e([0])).sum(), R.arr([], [0]), 'int32');
  c('prod [0,3] dim 0 is 1', 'prod', EXACT, (b) => ft(b, e([0, 3])).prod(0), R.arr([3], [1, 1, 1]));
  c('prod [0] all is 1', 'prod', EXACT, (b) => ft(b, e([0])).prod(), R.arr([], [1]));
  c('prod int32 [2,0] dim 1 is 1', 'prod', EXACT, (b) => it(b, e([2, 0])).prod(1), R.arr([2], [1, 1]), 'int32');
  c('mean [0,3] dim 0 is NaN', 'mean', EXACT, (b) => ft(b, e([0, 3])).mean(0), R.arr([3], [NaN, NaN, NaN]));
  c('mean [0] all is NaN', 'mean', EXACT, (b) => ft(b, e([0])).mean(), R.arr([], [NaN]));
  c('max [3,0] dim 0 (non-empty reduced dim)', 'max', EXACT, (b) => ft(b, e([3, 0])).max(0), e([0]));
  c('softmax [0,4]', 'softmax', EXACT, (b) => ft(b, e([0, 4])).softmax(), e([0, 4]));
  c('reshape [0,3] to [3,-1]', 'reshape', EXACT, (b) => ft(b, e([0, 3])).reshape([3, -1]), e([3, 0]));
  c('permute [0,3]', 'permute', EXACT, (b) => ft(b, e([0, 3])).permute([1, 0]), e([3, 0]));
  c('clone [0,3]', 'copy', EXACT, (b) => ft(b, e([0, 3])).clone(), e([0, 3]));
  c('cat of two empty pieces', 'cat', EXACT, (b) => Tensor.cat([ft(b, e([0, 2])), ft(b, e([0, 2]))], 0), e([0, 2]));
  c('matmul [2,0]x[0,0]', 'matmul', EXACT, (b) => ft(b, e([2, 0])).matmul(ft(b, e([0, 0]))), e([2, 0]));
  c('gather with an empty index', 'gather', EXACT, (b) => ft(b, randF(new Rng('eg'), [2, 3])).gather(1, it(b, e([2, 0]))), e([2, 0]));
}

function nanInf(out: Case[]): void {
  const c = (name: string, op: string, tol: Tol, build: (b: Backend) => Tensor<Backend>, want: () => Arr, dtype: 'float32' | 'int32' | 'bool' = 'float32') => out.push(value(name, op, tol, build, () => ex(want(), dtype)));
  const x = f32([6], [NaN, Infinity, -Infinity, Infinity, 1, -0]);
  const y = f32([6], [1, 1, 1, -Infinity, NaN, 0]);
  c('add NaN and inf propagate', 'add', EXACT, (b) => ft(b, x).add(ft(b, y)), () => R.map([x, y], (a, d) => a + d));
  c('sub NaN and inf propagate', 'sub', EXACT, (b) => ft(b, x).sub(ft(b, y)), () => R.map([x, y], (a, d) => a - d));
  const m1 = f32([6], [Infinity, 0, -Infinity, NaN, Infinity, -2]);
  const m2 = f32([6], [0, Infinity, 2, 1, -1, Infinity]);
  c('mul inf * 0 is NaN', 'mul', EXACT, (b) => ft(b, m1).mul(ft(b, m2)), () => R.map([m1, m2], (a, d) => a * d));
  const d1 = f32([6], [1, -1, 0, Infinity, 1, NaN]);
  const d2 = f32([6], [0, 0, 0, Infinity, Infinity, 1]);
  c('div by zero and inf', 'div', EXACT, (b) => ft(b, d1).div(ft(b, d2)), () => R.map([d1, d2], (a, d) => a / d));
  c('add scalar to NaN and inf', 'add', EXACT, (b) => ft(b, x).add(1), () => R.map([x], (a) => a + 1));
  c('mul scalar 0 with inf is NaN', 'mul', EXACT, (b) => ft(b, x).mul(0), () => R.map([x], (a) => a * 0));
  const mx1 = f32([5], [NaN, 1, NaN, 2, -Infinity]);
  const mx2 = f32([5], [1, NaN, NaN, 3, Infinity]);
  c('maximum NaN wins', 'maximum', EXACT, (b) => ft(b, mx1).maximum(ft(b, mx2)), () => R.map([mx1, mx2], R.maximumF));
  c('minimum NaN wins', 'minimum', EXACT, (b) => ft(b, mx1).minimum(ft(b, mx2)), () => R.map([mx1, mx2], R.minimumF));
  c('maximum scalar with NaN', 'maximum', EXACT, (b) => ft(b, mx1).maximum(1.5), () => R.map([mx1], (a) => R.maximumF(a, 1.5)));
  c('minimum scalar NaN', 'minimum', EXACT, (b) => ft(b, R.arr([3], [1, -2, 3])).minimum(NaN), () => R.arr([3], [NaN, NaN, NaN]));
  const c1 = f32([6], [NaN, NaN, 1, NaN, Infinity, -Infinity]);
  const c2 = f32([6], [NaN, 1, NaN, Infinity, Infinity, -Infinity]);
  const cmps = {
    equal: (a: number, d: number) => a === d,
    notEqual: (a: number, d: number) => a !== d,
    greater: (a: number, d: number) => a > d,
    greaterEqual: (a: number, d: number) => a >= d,
    lower: (a: number, d: number) => a < d,
    lowerEqual: (a: number, d: number) => a <= d,
  } as const;
  for (const [op, f] of Object.entries(cmps) as Array<[keyof typeof cmps, (a: number, d: number) => boolean]>) {
    c(`${op} with NaN is false (except notEqual)`, op, EXACT, (b) => ft(b, c1).binary(op, ft(b, c2)), () => R.map([c1, c2], (a, d) => (f(a, d) ? 1 : 0)), 'bool');
    c(`${op} scalar NaN`, op, EXACT, (b) => ft(b, c1).binary(op, NaN), () => R.map([c1], (a) => (f(a, NaN) ? 1 : 0)), 'bool');
  }
  // Reductions: NaN propagates through max / min / sum / prod; argmax and argmin pick NaN.
  const r = f32([3, 4], [1, NaN, 3, 0, 4, 5, 6, 2, -1, 7, -5, NaN]);
  const r0 = f32([3, 4], [NaN, 1, 2, 3, 5, 4, 3, NaN, 0, 0, 0, 0]);
  for (const [label, a] of [
    ['NaN inside rows', r],
    ['NaN first and last', r0],
  ] as const) {
    reduceCase(out, 'max', a, 1, false, `${label}`);
    reduceCase(out, 'max', a, 0, false, `${label}`);
    reduceCase(out, 'max', a, undefined, false, `${label}`);
    reduceCase(out, 'min', a, 1, false, `${label}`);
    reduceCase(out, 'min', a, undefined, false, `${label}`);
    reduceCase(out, 'argmax', a, 1, false, `${label}`);
    reduceCase(out, 'argmax', a, undefined, false, `${label}`);
    reduceCase(out, 'argmin', a, 1, false, `${label}`);
  }
  reduceCase(out, 'sum', r, 1, false, 'NaN inside rows');
  reduceCase(out, 'prod', r, 0, false, 'NaN inside rows');
  reduceCase(out, 'mean', r, undefined, false, 'NaN inside rows');
  {
    const inf = f32([2, 3], [Infinity, 1, -Infinity, Infinity, 2, 3]);
    reduceCase(out, 'sum', inf, 1, false, 'inf - inf');
    reduceCase(out, 'max', inf, 1, false, 'with inf');
    reduceCase(out, 'min', inf, 1, false, 'with inf');
    reduceCase(out, 'argmax', inf, 1, false, 'with inf');
    reduceCase(out, 'argmin', inf, 0, false, 'with inf');
  }
  {
    const a = f32([2, 2], [1, NaN, 1, 2]);
    const d = f32([2, 2], [1, 2, 3, 4]);
    c('matmul NaN propagates', 'matmul', accTol(2), (b) => ft(b, a).matmul(ft(b, d)), () => R.matmul(a, d));
    const i1 = f32([1, 2], [Infinity, 0]);
    const i2 = f32([2, 2], [0, 1, 1, 1]);
    c('matmul inf * 0 is NaN', 'matmul', accTol(2), (b) => ft(b, i1).matmul(ft(b, i2)), () => R.matmul(i1, i2));
  }
  {
    const a = f32([2, 3], [1, NaN, 2, 0, 1, 2]);
    c('softmax NaN row is NaN', 'softmax', { abs: 1e-6, rel: 1e-5 }, (b) => ft(b, a).softmax(), () => R.softmax(a, -1, false));
  }
  {
    const cond = f32([4], [NaN, 0, -0, 2]);
    c('where picks NaN through', 'where', EXACT, (b) => ft(b, cond).where(bt(b, R.arr([4], [1, 0, 1, 0])), ft(b, R.arr([4], [9, NaN, 9, Infinity]))), () => R.arr([4], [NaN, NaN, -0, Infinity]));
  }
}

function rankZero(out: Case[]): void {
  const s = f32([], [1.25]);
  const t = f32([], [-3.5]);
  out.push(value('add rank-0 + rank-0', 'add', ARITH, (b) => ft(b, s).add(ft(b, t)), () => ex(R.map([s, t], (a, d) => a + d))));
  out.push(value('mul rank-0 scalar', 'mul', ARITH, (b) => ft(b, s).mul(-2), () => ex(R.map([s], (a) => a * -2))));
  out.push(value('greater rank-0', 'greater', EXACT, (b) => ft(b, s).greater(ft(b, t)), () => ex(R.arr([], [1]), 'bool')));
  {
    const x = randF(new Rng('where rank0'), [2, 3]);
    out.push(value('where rank-0 cond', 'where', EXACT, (b) => ft(b, x).where(bt(b, R.arr([], [0])), ft(b, s)), () => ex(R.map([x], () => 1.25))));
  }
  out.push(value('cast rank-0', 'cast', EXACT, (b) => ft(b, t).cast('int32'), () => ex(R.arr([], [-3]), 'int32')));
  out.push(value('int32 rank-0 div', 'div', EXACT, (b) => it(b, R.arr([], [-7])).div(it(b, R.arr([], [2]))), () => ex(R.arr([], [-4]), 'int32')));
  out.push(value('size-1 dims broadcast [1,1,1]+[1]', 'add', ARITH, (b) => ft(b, s).reshape([1, 1, 1]).add(ft(b, t).reshape([1])), () => ex(R.arr([1, 1, 1], [1.25 - 3.5]))));
  out.push(value('expand rank-0 then sum', 'sum', EXACT, (b) => ft(b, s).expand([4, 2]).sum(), () => ex(R.arr([], [10]))));
}

export function specialCases(): Case[] {
  const out: Case[] = [];
  nonContiguous(out);
  empty(out);
  nanInf(out);
  rankZero(out);
  return out;
}
