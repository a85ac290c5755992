/**
 * Out-of-range indices of gather / indexSelect / scatterAdd are found when the kernel runs (the
 * values are on the device). A public function built on those ops (crossEntropy, embedding, take,
 * maxUnpool2d, ...) names itself in the op's record as its `caller`, plain data that travels with
 * the record to workers and other devices, so the error names what the user called, with the
 * inner op as context (set by the scope in src/tensor/index-scope.ts).
 */
import { ArgumentError } from '../errors.js';

export interface IndexCaller {
  /** The public function, named as the error's op. */
  readonly name: string;
  /** What its indices are called in the message (default 'index'). */
  readonly what?: string;
  /** The bound as a count of these: 'classes' gives "for 10 classes" (default "for dim d of size n"). */
  readonly of?: string;
  /** Added to the kernel's index before it is shown: 1 for 1-based pivots. */
  readonly base?: number;
  /** The accepted values when they are not [base, n - 1 + base] (take's negative indices), made at the call. */
  readonly accepts?: string;
}

/** The ops whose kernels check index values. */
export type IndexOp = 'gather' | 'indexSelect' | 'scatterAdd';

/** Where the README explains late index checks. */
const README = 'README, "Errors"';

/** The error for index `i` outside [0, size) on `dim`: the index op's own, or its caller's naming the op. */
export function indexError(op: IndexOp, caller: IndexCaller | undefined, i: number, dim: number, size: number): ArgumentError {
  if (!caller) return new ArgumentError(`index ${i} is out of range for dim ${dim} of size ${size}`, { op, hint: `indices along dim ${dim} must be in [0, ${size - 1}]` });
  const base = caller.base ?? 0;
  const what = caller.what ?? 'index';
  const bound = caller.of === undefined ? `dim ${dim} of size ${size}` : `${size} ${caller.of}`;
  const accepts = caller.accepts ?? `in [${base}, ${size - 1 + base}]`;
  return new ArgumentError(`${what} ${i + base} is out of range for ${bound} (in ${op})`, {
    op: caller.name,
    hint: `each ${what} must be ${accepts}; index values are checked when the op runs on the device (${README})`,
  });
}
