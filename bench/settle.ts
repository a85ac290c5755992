/** Waits for every op queued before `t` on its device: reads one element of it (a device runs its queue in order). */
import type { Backend } from '../src/backends/backend.js';
import { tidy, type Tensor } from '../src/index.js';

export async function settle<B extends Backend>(t: Tensor<B>): Promise<void> {
  const probe = tidy(() => t.reshape([-1]).slice([[0, Math.min(1, t.size)]]));
  await probe.toData();
  probe.dispose();
}

/**
 * Keeps the GPU busy with `run` (each call makes one tensor) for `ms` before a timed round: a GPU
 * that idled (while the host built inputs or references) runs at low clocks and takes a while to
 * raise them. On the H200 a float16 matmul timed right after such a pause ran at 675 MHz against
 * 1980, 0.4x its speed; the driver had lowered the clocks within a second of idling.
 */
export async function warmUp<B extends Backend>(run: () => Tensor<B>, ms = 500): Promise<void> {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const ts: Tensor<B>[] = [];
    for (let i = 0; i < 8; i++) ts.push(run());
    await settle(ts[ts.length - 1]!);
    for (const t of ts) t.dispose();
  }
}
