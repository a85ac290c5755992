/** Shared by the router tests: two CPU backends on distinct devices, and an event recorder. */
import { Cpu } from '../../src/backends/cpu/backend.js';
import { CpuDevice } from '../../src/devices/cpu.js';
import { Router } from '../../src/router/router.js';
import type { OpEvent } from '../../src/scheduler/events.js';
import { scheduler } from '../../src/runtime/default.js';

export const CPU1 = CpuDevice.named('cpu:1');
export const CPU2 = CpuDevice.named('cpu:2');

export function cpuRouter(threads = 0): Router<[Cpu, Cpu]> {
  return new Router([new Cpu({ threads }), new Cpu({ threads, device: CPU1 })]);
}

/** Collects every op event until `stop()`; `on(op)` lists the devices an op ran on, in order. */
export function recordEvents(): { events: OpEvent[]; on(op: string): string[]; stop(): void } {
  const events: OpEvent[] = [];
  const sub = scheduler.events$.subscribe((e) => events.push(e));
  return {
    events,
    on: (op) => events.filter((e) => e.op === op).map((e) => e.device),
    stop: () => sub.unsubscribe(),
  };
}

/** Bit patterns, so that NaN payloads and -0 compare exactly. */
export function bits(values: ArrayLike<number> & { buffer: ArrayBufferLike; byteOffset: number; byteLength: number }): number[] {
  return Array.from(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
}
