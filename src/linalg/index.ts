/** torch.linalg basics, composed from tensor ops (see README "Linear algebra"). */
export { solveTriangular, cholesky } from './triangular.js';
export type { SolveTriangularOptions } from './triangular.js';
export { solve, inv, det, slogdet } from './lu.js';
export { matrixNorm, trace } from './norms.js';
export type { MatrixOrd } from './norms.js';
export { qr } from './qr.js';
export type { QrMode } from './qr.js';
export { eigh, eigvalsh } from './eigh.js';
export type { Uplo } from './eigh.js';
export { svd, svdvals } from './svd.js';
export { pinv, matrixRank, cond } from './spectral.js';
export type { TolOptions, CondOrd } from './spectral.js';
export { lstsq } from './lstsq.js';
export { luFactor, lu, luSolve } from './lu-factor.js';
export type { LuSolveOptions } from './lu-factor.js';
