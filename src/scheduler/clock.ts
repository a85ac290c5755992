/** The time source the scheduler asks; tests swap the delegate for a virtual clock. */
export interface Clock {
  now(): number;
}

export const clock: Clock & { delegate: Clock | undefined } = {
  delegate: undefined,
  now() {
    return this.delegate ? this.delegate.now() : performance.now();
  },
};
