/**
 * Typed errors. Each names the op, the offending shapes / dtypes / devices, and a hint,
 * so that a user can act on the message alone.
 */
export interface ErrorDetails {
  op: string;
  hint?: string;
  shapes?: ReadonlyArray<readonly number[]>;
  dtypes?: readonly string[];
  devices?: readonly string[];
}

export class SwitchyardError extends Error {
  readonly op: string;
  readonly hint: string | undefined;
  constructor(message: string, details: ErrorDetails) {
    const parts = [`${details.op}: ${message}`];
    if (details.shapes) parts.push(`shapes: ${details.shapes.map((s) => `[${s.join(', ')}]`).join(', ')}`);
    if (details.dtypes) parts.push(`dtypes: ${details.dtypes.join(', ')}`);
    if (details.devices) parts.push(`devices: ${details.devices.join(', ')}`);
    if (details.hint) parts.push(`hint: ${details.hint}`);
    super(parts.join('; '));
    this.name = new.target.name;
    this.op = details.op;
    this.hint = details.hint;
  }
}

/** Shapes that do not fit the op (broadcasting, matmul inner dims, out-of-range dims). */
export class ShapeError extends SwitchyardError {
  readonly shapes: ReadonlyArray<readonly number[]>;
  constructor(message: string, details: ErrorDetails & { shapes: ReadonlyArray<readonly number[]> }) {
    super(message, details);
    this.shapes = details.shapes;
  }
}

/** A dtype the op does not accept, or mismatched dtypes. */
export class DTypeError extends SwitchyardError {
  readonly dtypes: readonly string[];
  constructor(message: string, details: ErrorDetails & { dtypes: readonly string[] }) {
    super(message, details);
    this.dtypes = details.dtypes;
  }
}

/** Tensors on different devices, an unknown device, or a device that cannot be initialised. */
export class DeviceError extends SwitchyardError {
  readonly devices: readonly string[];
  constructor(message: string, details: ErrorDetails & { devices: readonly string[] }) {
    super(message, details);
    this.devices = details.devices;
  }
}

/** Bad argument values: an index out of range, a negative size, a bad distribution. */
export class ArgumentError extends SwitchyardError {}

/** A kernel failed while running (worker crash, GPU validation error, device lost). */
export class KernelError extends SwitchyardError {
  override readonly cause: unknown;
  constructor(message: string, details: ErrorDetails & { cause?: unknown }) {
    super(message, details);
    this.cause = details.cause;
  }
}

/** A tensor used after dispose(), or after its tidy scope freed it. */
export class DisposedError extends SwitchyardError {}

/** A step that cannot be captured for replay (it reads values back, draws random numbers, replaces state it does not declare), or a replay whose state changed. */
export class CaptureError extends SwitchyardError {}

/**
 * A subscriber of a public stream (`events$`, `samples$`) threw. Never thrown: the subscriber is
 * unsubscribed and this is reported as a warning (`process.emitWarning`, or `console.warn` outside Node).
 */
export class SubscriberError extends SwitchyardError {
  override readonly cause: unknown;
  constructor(message: string, details: ErrorDetails & { cause?: unknown }) {
    super(message, details);
    this.cause = details.cause;
  }
}
