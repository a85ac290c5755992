/** Waits for every op queued before `t` on its device: reads one element of it (a device runs its queue in order). */
import type { Backend } from '../src/backends/backend.js';
import { tidy, type Tensor } from '../src/index.js';

export async function settle<B extends Backend>(t: Tensor<B>): Promise<void> {
  const probe = tidy(() => t.reshape([-1]).slice([[0, Math.min(1, t.size)]]));
  await probe.toData();
  probe.dispose();
}

/**
 * Keeps the GPU busy with `run` (each call makes one tensor) until its rate stops rising, before a
 * timed round: a GPU that idled (while the host built inputs or references) runs at low clocks
 * and raises them only under sustained work. On the H200 the clocks stayed at 1980 MHz for about
 * 5 s after a device started, then followed the load: bursts of work between 0.4 s pauses ran at
 * 450-1000 MHz, and a float16 matmul timed after such pauses at 0.3-0.4x its speed. Windows of at
 * least 100 ms; done when a window is no more than 2% faster than the one before, after `minMs`,
 * or at `maxMs`.
 */
export async function warmUp<B extends Backend>(run: () => Tensor<B>, minMs = 500, maxMs = 6000): Promise<void> {
  const start = performance.now();
  let previous = 0;
  for (;;) {
    const t0 = performance.now();
    let calls = 0;
    while (performance.now() - t0 < 100) {
      const ts: Tensor<B>[] = [];
      for (let i = 0; i < 8; i++) ts.push(run());
      await settle(ts[ts.length - 1]!);
      for (const t of ts) t.dispose();
      calls += 8;
    }
    const now = performance.now();
    const rate = calls / (now - t0);
    if (now - start >= maxMs || (now - start >= minMs && rate <= previous * 1.02)) return;
    previous = rate;
  }
}
