/**
 * Switchyard against PyTorch's reference vectors for the common ops composed from existing ones
 * (group `misc2`, tools/torch-vectors/groups/misc2.py): addmm, baddbmm, addbmm, addmv, addr;
 * cross, cdist, trace, kron, rot90, fliplr, flipud, movedim, swapaxes; searchsorted, bucketize,
 * histc, meshgrid, cartesianProd, triuIndices, trilIndices; logaddexp2, sinc, deg2rad, rad2deg,
 * heaviside, nanToNum, signbit, isin, isclose and the async allclose. Int and bool outputs compare
 * as float32 numbers.
 */
import { torchVectorSuite, a, all, type Adapter, type Bool, type Ctx, type F, type I, type Known } from './harness.js';
import { cartesianProd, meshgrid } from '../../src/tensor/misc-ops.js';
import { fromData, trilIndices, triuIndices } from '../../src/tensor/creation.js';

const f = (t: I | Bool): F => t.cast('float32');
const x0 = (x: Ctx): F => x.t['x']!;
const scales = (x: Ctx): { beta: number; alpha: number } => ({ beta: a.num(x, 'beta')!, alpha: a.num(x, 'alpha')! });
const listOrNum = (x: Ctx, k: string): number | number[] => x.args[k] as number | number[];
const floats = (x: Ctx): F[] => x.list.filter((t): t is F => t.kind === 'float');

const ADAPTERS: Readonly<Record<string, Adapter>> = {
  addmm: (x) => x0(x).addmm(x.t['a']!, x.t['b']!, scales(x)),
  baddbmm: (x) => x0(x).baddbmm(x.t['a']!, x.t['b']!, scales(x)),
  addbmm: (x) => x0(x).addbmm(x.t['a']!, x.t['b']!, scales(x)),
  addmv: (x) => x0(x).addmv(x.t['a']!, x.t['b']!, scales(x)),
  addr: (x) => x0(x).addr(x.t['a']!, x.t['b']!, scales(x)),
  cross: (x) => x.t['a']!.cross(x.t['b']!, a.num(x, 'dim')!),
  cdist: (x) => x.t['x1']!.cdist(x.t['x2']!, a.num(x, 'p')!),
  trace: (x) => x0(x).trace(),
  trace_int: (x) => f(x.int['x']!.trace()),
  kron: (x) => x.t['a']!.kron(x.t['b']!),
  rot90: (x) => x0(x).rot90(a.num(x, 'k')!, x.args['dims'] as number[]),
  fliplr: (x) => x0(x).fliplr(),
  flipud: (x) => x0(x).flipud(),
  movedim: (x) => x0(x).movedim(listOrNum(x, 'source'), listOrNum(x, 'destination')),
  swapaxes: (x) => x0(x).swapaxes(a.num(x, 'a')!, a.num(x, 'b')!),
  searchsorted: (x) => f(x.t['s']!.searchsorted(x.t['v']!, x.args['side'] === undefined ? { right: a.bool(x, 'right')! } : { side: x.args['side'] as 'left' | 'right' })),
  searchsorted_int: (x) => f(x.int['s']!.searchsorted(x.int['v']!, { right: a.bool(x, 'right')! })),
  searchsorted_scalar: (x) => f(x.t['s']!.searchsorted(a.num(x, 'value')!, { right: a.bool(x, 'right')! })),
  bucketize: (x) => f(x.t['v']!.bucketize(x.t['s']!, { right: a.bool(x, 'right')! })),
  histc: (x) => x0(x).histc(a.num(x, 'bins')!, a.num(x, 'min')!, a.num(x, 'max')!),
  meshgrid: (x) => meshgrid(floats(x), { indexing: x.args['indexing'] as 'ij' | 'xy' }),
  cartesian_prod: (x) => cartesianProd(floats(x)),
  triu_indices: (x) => f(triuIndices(x.b, a.num(x, 'row')!, a.num(x, 'col')!, a.num(x, 'offset')!)),
  tril_indices: (x) => f(trilIndices(x.b, a.num(x, 'row')!, a.num(x, 'col')!, a.num(x, 'offset')!)),
  vander: (x) => x0(x).vander(a.num(x, 'N') ?? null, a.bool(x, 'increasing')!),
  vander_int: (x) => f(x.int['x']!.vander(a.num(x, 'N')!, a.bool(x, 'increasing')!)),
  contiguous: (x) => x0(x).transpose().contiguous(),
  logaddexp2: (x) => x.t['a']!.logaddexp2(x.t['b']!),
  sinc: (x) => x0(x).sinc(),
  deg2rad: (x) => x0(x).deg2rad(),
  rad2deg: (x) => x0(x).rad2deg(),
  heaviside: (x) => x0(x).heaviside(x.t['v']!),
  heaviside_int: (x) => f(x.int['x']!.heaviside(x.int['v']!)),
  nan_to_num: (x) => x0(x).nanToNum(a.num(x, 'nan', 0), a.num(x, 'posinf'), a.num(x, 'neginf')),
  signbit: (x) => f(x0(x).signbit()),
  signbit_int: (x) => f(x.int['x']!.signbit()),
  isin: (x) => f(x0(x).isin(x.t['t']!, a.bool(x, 'invert')!)),
  isin_int: (x) => f(x.int['x']!.isin(x.int['t']!)),
  isclose: (x) => f(x.t['a']!.isclose(x.t['b']!, { rtol: a.num(x, 'rtol')!, atol: a.num(x, 'atol')!, equalNan: a.bool(x, 'equal_nan')! })),
  allclose: async (x) => fromData(x.b, [Number(await x.t['a']!.allclose(x.t['b']!, { equalNan: a.bool(x, 'equal_nan')! }))], { dtype: 'float32', shape: [] }),
};

const KNOWN: readonly Known[] = [
  {
    group: 'misc2',
    cases: /^trace tall$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "gradient only, of a tall matrix (5 x 3): torch's trace backward fills every (cols + 1)-th flat element, so [4, 0] gets 1 too; ours is 1 on the diagonal alone (the derivative of the sum of the diagonal)",
  },
  {
    group: 'misc2',
    cases: /^cdist p=inf ties$/,
    torch: all,
    versions: '1.13 (2.x unverified)',
    kind: 'torch',
    why: "gradient only, where several coordinates tie for the largest |difference|: torch's backward gives each the full gradient (moving all of them by t moves the distance by t, but its gradient says by 2t); ours shares it evenly (max's rule)",
  },
];

await torchVectorSuite({ groups: ['misc2'], adapters: ADAPTERS, known: KNOWN });
