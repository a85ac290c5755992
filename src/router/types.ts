/** The types a Router is built from: inner backends and the device union of a tuple of them. */
import type { Backend } from '../backends/backend.js';
import type { MultiDevice } from '../devices/multi-device.js';

/** Two or more backends (any backend: a local one, a decorator such as Autodiff, another Router). */
export type Backends = readonly [Backend, Backend, ...Backend[]];

export type DeviceOf<B extends Backend> = ReturnType<B['defaultDevice']>;

/** The positions of a tuple as number literals: 0 | 1 for a pair. */
export type IndexOf<Bs extends readonly unknown[]> = { [K in keyof Bs]: K extends `${infer N extends number}` ? N : never }[number];

/** The device type of `Router<Bs>`: one MultiDevice per position, tied to that backend's device type. */
export type RouterDevice<Bs extends Backends> = { [K in keyof Bs]: K extends `${infer N extends number}` ? MultiDevice<N, DeviceOf<Bs[K]>> : never }[number];
