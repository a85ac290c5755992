/**
 * float32 matmul precision, as PyTorch's `set_float32_matmul_precision`: 'highest' computes in
 * f32 (the default); 'high' splits each input into two f16 terms and sums three tensor-core
 * products (close to f32 accuracy); 'medium' rounds the inputs to f16 (f32 accumulation). Both
 * f16 modes need the inputs inside f16's range (|x| < 65504) and lose relative precision below
 * 6.1e-5 (f16 subnormals); on a GPU without tensor cores every mode computes in f32.
 */
export type MatmulPrecision = 'highest' | 'high' | 'medium';
export const MATMUL_PRECISIONS: readonly MatmulPrecision[] = ['highest', 'high', 'medium'];
