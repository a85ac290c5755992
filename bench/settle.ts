/** Waits for every op queued before `t` on its device: reads one element of it (a device runs its queue in order). */
import type { Backend } from '../src/backends/backend.js';
import { tidy, type Tensor } from '../src/index.js';

export async function settle<B extends Backend>(t: Tensor<B>): Promise<void> {
  const probe = tidy(() => t.reshape([-1]).slice([[0, Math.min(1, t.size)]]));
  await probe.toData();
  probe.dispose();
}
