/**
 * The profiler: watches op events (RxJS operators over `events$`), turns them into device time
 * per op (service-time.ts), and feeds the cost model: op runs by footprint and device, transfers
 * by device pair. It persists the model per machine and adapters (store.ts) and reloads it.
 * Disabled, it stops watching (events are then not timed at all) and the model stays as it is.
 * Placement also quiets it for the steps it does not time (one device settled on): unwatched, the
 * scheduler reads no clock per op and a GPU waits for no batch on its behalf.
 */
import { filter, share, Subject, type Observable, type Subscription } from 'rxjs';
import type { OpEvent } from '../scheduler/events.js';
import { guarded } from '../scheduler/guarded.js';
import { CostModel, type CostModelOptions } from './cost-model.js';
import { footprint, type Footprint } from './footprint.js';
import { rooflineMs, serviceTimes, type Sample } from './service-time.js';
import { cacheDir, machineId, modelPath, readModels, removeModels, writeModels, type SavedFile } from './store.js';

export interface ProfilerOptions extends CostModelOptions {
  /** Where `save()` and `load()` keep the models: a folder, or false for nowhere (default: the user's cache dir, in Node). */
  persist?: string | false;
  /** Start disabled: the model is used as loaded, nothing is watched. */
  enabled?: boolean;
}

/** The footprint of a recorded op (its record carries the input shapes). */
export function footprintOf(e: OpEvent): Footprint {
  return footprint(e.op, e.record.inputs, e.record.attrs);
}

export class Profiler {
  readonly model: CostModel;
  private readonly flush$ = new Subject<void>();
  private readonly samplesSubject = new Subject<Sample>();
  private sub: Subscription | undefined;
  /** Enabled by its owner (a quiet profiler is enabled but watches nothing for a while). */
  private wanted = false;
  private quieted = false;
  /** Samples fed to the model so far (what the work of profiling is counted by). */
  private fed = 0;
  private readonly persist: string | false | undefined;
  /** Output tensor ids whose ops must not reach the model (calibration runs feed it themselves). */
  readonly ignored = new Set<number>();
  private file: Promise<string | undefined> | undefined;
  private adapters: readonly string[] = [];

  /** Every sample, after it reached the model (placement reads measured times here). */
  readonly samples$: Observable<Sample> = guarded(this.samplesSubject, 'samples$');

  constructor(
    private readonly events$: Observable<OpEvent>,
    options: ProfilerOptions = {},
  ) {
    this.model = new CostModel(options);
    this.persist = options.persist;
    if (options.enabled !== false) this.enable();
  }

  get enabled(): boolean {
    return this.wanted;
  }

  /** Whether events are being watched now (enabled and not quiet). */
  get watching(): boolean {
    return this.sub !== undefined;
  }

  /** Samples fed to the model so far. */
  get samples(): number {
    return this.fed;
  }

  enable(): void {
    this.wanted = true;
    this.watch();
  }

  /** Stops watching events; the model keeps what it learned. */
  disable(): void {
    this.wanted = false;
    this.unwatch();
  }

  /** Quiet: stops watching until `quiet(false)`, without changing whether it is enabled. */
  quiet(on: boolean): void {
    this.quieted = on;
    if (on) this.unwatch();
    else this.watch();
  }

  private watch(): void {
    if (this.sub || !this.wanted || this.quieted) return;
    const samples = this.events$.pipe(
      filter((e) => e.error === undefined && (this.ignored.size === 0 || !this.ignored.has(e.record.outputs[0]?.id ?? -1))),
      serviceTimes((g) => this.weigh(g), this.flush$),
      share(),
    );
    this.sub = samples.subscribe((s) => this.observe(s));
  }

  private unwatch(): void {
    if (!this.sub) return;
    this.flush();
    this.sub?.unsubscribe();
    this.sub = undefined;
  }

  /** Closes the groups of overlapping ops still open, so their times reach the model now. */
  flush(): void {
    this.flush$.next();
  }

  /** Feeds one sample (the operator chain does this for watched events; tests may too). */
  observe(s: Sample): void {
    this.fed++;
    const e = s.event;
    if (e.record.op === 'transfer') {
      // A transfer inside a workload also waits (for the batch that makes its input, for the
      // JavaScript turn to end); once a calibration has measured the pair alone, the line stays
      // the calibration's and the waits are kept apart (added to its predictions).
      const { from, to } = e.record.attrs;
      const t = this.model.transfer(from, to);
      if (!t.calibrated) t.add(e.outputBytes, s.ms);
      else t.addInWorkload(e.outputBytes, s.ms);
    } else this.model.add(footprintOf(e), e.device, s.ms);
    this.samplesSubject.next(s);
  }

  /**
   * The ops' shares of a group: their history estimates when every op has one, else roofline
   * estimates for all of them. Never a mix: a roofline estimate is only an order of magnitude, and
   * set against measured times it would hand an op a share off by that much, which its history
   * then keeps (the next groups are split by it again).
   */
  private weigh(group: readonly OpEvent[]): number[] {
    const fps = group.map(footprintOf);
    const measured: number[] = [];
    for (let i = 0; i < group.length; i++) {
      const est = this.model.estimate(fps[i]!, group[i]!.device);
      if (!est || !(est.ms > 0)) break;
      measured.push(est.ms);
    }
    if (measured.length === group.length) return measured;
    return fps.map((fp, i) => rooflineMs(fp.flops, fp.bytes, group[i]!.where === 'gpu'));
  }

  // ---- persistence ----------------------------------------------------------------------

  /** Names the devices and adapters the models belong to (part of the file name). */
  identify(adapters: readonly string[]): void {
    this.adapters = adapters;
    this.file = undefined;
  }

  /** The file the models live in, or undefined where nothing persists. */
  path(): Promise<string | undefined> {
    this.file ??= (async () => {
      if (this.persist === false) return undefined;
      const dir = this.persist ?? (await cacheDir());
      const machine = await machineId();
      if (dir === undefined || machine === undefined) return undefined;
      return modelPath(dir, machine, this.adapters);
    })();
    return this.file;
  }

  /** Merges the saved models (what was measured in this process wins); resolves to whether a file was read. */
  async load(): Promise<boolean> {
    const file = await this.path();
    if (!file) return false;
    const saved = await readModels(file);
    if (!saved) return false;
    this.model.load(saved.models);
    return true;
  }

  /** Writes the models; resolves to the file written (undefined where nothing persists). */
  async save(): Promise<string | undefined> {
    const file = await this.path();
    const machine = await machineId();
    if (!file || !machine) return undefined;
    const data: SavedFile = { format: 'switchyard-placement', version: 1, machine, adapters: this.adapters, savedAt: new Date().toISOString(), models: this.model.toJSON() };
    await writeModels(file, data);
    return file;
  }

  /** Forgets every model; with `{ saved: true }` also deletes the file. */
  async reset(options: { saved?: boolean } = {}): Promise<void> {
    this.model.reset();
    if (options.saved) {
      const file = await this.path();
      if (file) await removeModels(file);
    }
  }
}
