/** The types a Router is built from: routable inner backends and the device union of a tuple of them. */
import type { Backend } from '../backends/backend.js';
import type { Device } from '../devices/device.js';
import type { MultiDevice } from '../devices/multi-device.js';
import type { Executor } from '../scheduler/executor.js';

/** A backend the router can forward to and bridge from: it exposes each device's executor (LocalBackend does). */
export interface Routable<D extends Device = Device> extends Backend<D> {
  executorOf(device: D): Executor<unknown>;
  owns(device: Device): device is D;
}

/** Two or more backends. */
export type Backends = readonly [Routable, Routable, ...Routable[]];

export type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

/** The positions of a tuple as number literals: 0 | 1 for a pair. */
export type IndexOf<Bs extends readonly unknown[]> = { [K in keyof Bs]: K extends `${infer N extends number}` ? N : never }[number];

/** The device type of `Router<Bs>`: one MultiDevice per position, tied to that backend's device type. */
export type RouterDevice<Bs extends Backends> = { [K in keyof Bs]: K extends `${infer N extends number}` ? MultiDevice<N, DeviceOf<Bs[K]>> : never }[number];
