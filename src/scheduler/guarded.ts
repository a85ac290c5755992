/**
 * Public streams whose subscribers cannot hurt the library. RxJS catches what a subscriber's
 * callback throws and rethrows it in a setTimeout: in Node an uncaught exception, which ends the
 * process. A subscriber of a guarded stream that throws (from next, error or complete, or has no
 * error callback for an error its own operators raised) is unsubscribed instead, and reported
 * once as a SubscriberError warning; the other subscribers and the scheduler go on.
 */
import { Observable, Subscriber, type Observer, type Operator, type Subscription, type TeardownLogic } from 'rxjs';
import { SubscriberError } from '../errors.js';
import { warn } from '../platform.js';

/** A Subscriber of this or any other rxjs copy (rxjs's own test: an observer that is also a subscription). */
function isSubscriber<T>(x: unknown): x is Subscriber<T> {
  if (x instanceof Subscriber) return true;
  if (typeof x !== 'object' || x === null) return false;
  return (
    'next' in x && typeof x.next === 'function' && 'error' in x && typeof x.error === 'function' && 'complete' in x && typeof x.complete === 'function' && 'add' in x && typeof x.add === 'function' && 'remove' in x && typeof x.remove === 'function' && 'unsubscribe' in x && typeof x.unsubscribe === 'function' && 'closed' in x
  );
}

class Guarded<T> extends Observable<T> {
  constructor(
    private readonly stream: string,
    subscribe: (subscriber: Subscriber<T>) => TeardownLogic,
  ) {
    super(subscribe);
  }

  // pipe() builds each operator's Observable through lift: the chain stays guarded, so the
  // subscriber at its end (whose callbacks are the user's) is guarded too.
  override lift<R>(operator?: Operator<T, R>): Observable<R> {
    const lifted = super.lift(operator);
    return new Guarded<R>(this.stream, (subscriber) => lifted.subscribe(subscriber));
  }

  override subscribe(observerOrNext?: Partial<Observer<T>> | ((value: T) => void) | null, error?: ((error: unknown) => void) | null, complete?: (() => void) | null): Subscription {
    // Operators subscribing upstream: they catch what their functions throw and pass it down the
    // chain. Those of another copy of rxjs too (an app on another 7.x): wrapped, their unsubscribe
    // would not reach the stream, which would then stay observed (every op timed) for good.
    if (isSubscriber(observerOrNext)) return super.subscribe(observerOrNext);
    const observer: Partial<Observer<T>> =
      typeof observerOrNext === 'function' || observerOrNext == null ? { next: observerOrNext ?? undefined, error: error ?? undefined, complete: complete ?? undefined } : observerOrNext;
    let sub: Subscription | undefined;
    let failed = false;
    const fail = (thrown: unknown): void => {
      if (failed) return;
      failed = true;
      sub?.unsubscribe();
      const message = thrown instanceof Error ? thrown.message : String(thrown);
      warn(new SubscriberError(`a subscriber threw (${message}) and was unsubscribed; the other subscribers go on`, { op: this.stream, hint: 'catch errors inside the callback, or pass an error callback; see README "Scheduling and events"', cause: thrown }));
    };
    const guard = (call: () => void): void => {
      if (failed) return;
      try {
        call();
      } catch (e) {
        fail(e);
      }
    };
    sub = super.subscribe({
      next: (v) => guard(() => observer.next?.(v)),
      error: (e: unknown) => (observer.error ? guard(() => observer.error?.(e)) : fail(e)),
      complete: () => guard(() => observer.complete?.()),
    });
    // It threw while subscribing (a chain that emits at once): sub was not assigned yet.
    if (failed) sub.unsubscribe();
    return sub;
  }
}

/** `source` as a public stream: what its subscribers throw is reported as a warning naming `stream`, never rethrown. */
export function guarded<T>(source: Observable<T>, stream: string): Observable<T> {
  return new Guarded<T>(stream, (subscriber) => source.subscribe(subscriber));
}
