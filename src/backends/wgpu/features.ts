/**
 * Optional WebGPU features the kernels use where the adapter offers them: `shader-f16` and the
 * GPU's matrix units through `chromium-experimental-subgroup-matrix` (Dawn; in Node it appears
 * only with the `allow_unsafe_apis` toggle, and on NVIDIA f16 also needs
 * `vulkan_enable_f16_on_nvidia`, see adapter.ts). A feature is requested only when offered.
 */

export const F16_FEATURE = 'shader-f16';
export const SUBGROUP_MATRIX_FEATURE = 'chromium-experimental-subgroup-matrix';

/** What the device was created with. */
export interface GpuFeatures {
  readonly f16: boolean;
  /** f16 x f16 -> f32 16x16x16 subgroup matrices on 32-wide subgroups: the tensor-core matmul can run. */
  readonly tensorCores: boolean;
  /** GPU timestamps (the autotuner's clock). */
  readonly timestamps: boolean;
}

interface MatrixConfig {
  readonly componentType: unknown;
  readonly resultComponentType: unknown;
  readonly M: unknown;
  readonly N: unknown;
  readonly K: unknown;
}

function field(o: object, name: string): unknown {
  return Reflect.get(o, name);
}

/**
 * A feature the adapter lists is one its device accepts, also where the WebGPU type definitions
 * do not name it yet (experimental features).
 */
function offered(adapter: Pick<GPUAdapter, 'features'>, name: string): name is GPUFeatureName {
  return adapter.features.has(name);
}

function isConfig(c: unknown): c is MatrixConfig {
  return typeof c === 'object' && c !== null && 'componentType' in c && 'resultComponentType' in c && 'M' in c && 'N' in c && 'K' in c;
}

/** Whether the adapter's subgroup-matrix configurations include the one the kernels are written for. */
export function hasTensorCoreConfig(info: object): boolean {
  // Our kernels index subgroups as local_index / 32, so the subgroup size must be exactly 32.
  if (field(info, 'subgroupMinSize') !== 32 || field(info, 'subgroupMaxSize') !== 32) return false;
  const configs = field(info, 'subgroupMatrixConfigs');
  if (!Array.isArray(configs)) return false;
  return configs.some((c: unknown) => isConfig(c) && c.componentType === 'f16' && c.resultComponentType === 'f32' && c.M === 16 && c.N === 16 && c.K === 16);
}

/** The optional features to request from `adapter`, and what they enable. */
export function chooseFeatures(adapter: Pick<GPUAdapter, 'features' | 'info'>): { request: GPUFeatureName[]; features: GpuFeatures } {
  const request: GPUFeatureName[] = [];
  const f16 = offered(adapter, F16_FEATURE);
  if (f16) request.push(F16_FEATURE);
  const matrixName: string = SUBGROUP_MATRIX_FEATURE;
  let matrix = false;
  if (f16 && offered(adapter, matrixName) && hasTensorCoreConfig(adapter.info)) {
    request.push(matrixName);
    matrix = true;
  }
  const timestamps = offered(adapter, 'timestamp-query');
  if (timestamps) request.push('timestamp-query');
  return { request, features: { f16, tensorCores: matrix, timestamps } };
}
