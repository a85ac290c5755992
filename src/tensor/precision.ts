/**
 * Working precision for float16 values: torch's kernels accumulate half in float32 (opmath), so
 * sums of squares past 65504 (values past 256) do not overflow. Shared by norms, normalisations
 * and BatchNorm's running statistics.
 */
import type { Backend } from '../backends/backend.js';
import type { FloatDType } from '../ir/dtype.js';
import { tidy } from '../memory/tidy.js';
import type { Tensor } from './tensor.js';

type F<B extends Backend> = Tensor<B, 'float'>;

/** `t` in `dtype`: itself when it already is (no copy), else a cast. */
export function asDType<B extends Backend>(t: F<B>, dtype: FloatDType): F<B> {
  return t.dtype === dtype ? t : t.cast(dtype);
}

/** `f` on x in float32 when x is float16, its result rounded back once; x itself otherwise. */
export function inFloat32<B extends Backend>(x: F<B>, f: (x: F<B>) => F<B>): F<B> {
  if (x.dtype !== 'float16') return f(x);
  return tidy(() => f(x.cast('float32')).cast(x.dtype), x.backend.runtime);
}
