/**
 * One kernel's share of the GPU time while profiling (its own module: the published declarations
 * must type-check without WebGPU's types).
 */
export interface KernelTime {
  /** The program's key: the kernel family first (`fz|` generated elementwise, `matmul|`, `reduce|`, ...), then its structure. */
  readonly kernel: string;
  readonly calls: number;
  readonly totalMs: number;
  readonly meanUs: number;
}
