/**
 * What the placer believes an op costs on each device and a transfer costs between two: a
 * history per (footprint, device), a power-law regression per (op family, device) for sizes with
 * too few samples, and an alpha + beta * bytes line per device pair. Plain data in and out, so it
 * persists as JSON and tests feed it synthetic samples.
 */
import type { Footprint } from './footprint.js';
import { History, type Estimate } from './history.js';
import { evaluate, fitPowerLaw, type PowerLaw } from './regression.js';
import { priorFit, TransferModel, type TransferFit } from './transfer-model.js';

/** Where a prediction came from, most trusted first. */
export type PredictionSource = 'history' | 'regression' | 'partial' | 'none';

export interface Prediction {
  readonly ms: number;
  readonly source: PredictionSource;
  /** History samples behind it (0 for a regression or nothing). */
  readonly samples: number;
}

export interface CostModelOptions {
  /** Samples a history needs before it is trusted (default 10, as StarPU). */
  minSamples?: number;
  /** First runs of each footprint on a device that are not kept (default 1: kernels compile, pools grow). */
  warmup?: number;
  /** Whether a device keeps its memory on the host (transfer priors differ); default: its key starts with 'cpu'. */
  isHost?: (device: string) => boolean;
}

/** The JSON a cost model persists. */
export interface SavedModels {
  readonly version: 1;
  readonly ops: Record<string, Record<string, { readonly family: string; readonly work: number; readonly samples: number[] }>>;
  /** `waits`: the excess of recent in-workload transfers over the line (absent in older files). */
  readonly transfers: Record<string, { readonly samples: Array<[number, number]>; readonly calibrated: boolean; readonly waits?: number[] }>;
}

interface Family {
  readonly histories: Set<History>;
  /** Samples added since the last fit. */
  stale: number;
  law: PowerLaw | undefined;
}

const NONE: Prediction = { ms: 0, source: 'none', samples: 0 };

/** Refit a family's regression after this many new samples. */
const REFIT_EVERY = 8;

export class CostModel {
  readonly minSamples: number;
  private readonly warmup: number;
  private readonly isHost: (device: string) => boolean;
  private readonly ops = new Map<string, Map<string, History>>();
  private readonly families = new Map<string, Family>();
  private readonly transfers = new Map<string, TransferModel>();
  /** Each history's family (found without building its key on every sample). */
  private readonly familyOfHistory = new WeakMap<History, Family>();

  constructor(options: CostModelOptions = {}) {
    this.minSamples = options.minSamples ?? 10;
    this.warmup = options.warmup ?? 1;
    this.isHost = options.isHost ?? ((d) => d === 'cpu' || d.startsWith('cpu:'));
  }

  /** Records one run of an op of footprint `fp` on `device` that took `ms`. */
  add(fp: Footprint, device: string, ms: number): void {
    const h = this.history(device, fp.key, fp.work, fp.family);
    h.add(ms);
    this.familyOfHistory.get(h)!.stale++;
  }

  private history(device: string, key: string, work: number, family: string, samples?: readonly number[]): History {
    let byKey = this.ops.get(device);
    if (!byKey) this.ops.set(device, (byKey = new Map()));
    let h = byKey.get(key);
    if (!h) {
      byKey.set(key, (h = new History(work, family, this.warmup, samples)));
      const f = this.familyOf(device, family);
      f.histories.add(h);
      f.stale++;
      this.familyOfHistory.set(h, f);
    }
    return h;
  }

  private familyOf(device: string, family: string): Family {
    const k = `${device}|${family}`;
    let f = this.families.get(k);
    if (!f) this.families.set(k, (f = { histories: new Set(), stale: 0, law: undefined }));
    return f;
  }

  /** The history estimate of a footprint on a device, trusted or not. */
  estimate(fp: Footprint, device: string): Estimate | undefined {
    return this.ops.get(device)?.get(fp.key)?.estimate();
  }

  /** The regression of an op family on a device (refitted lazily as samples arrive). */
  regression(family: string, device: string): PowerLaw | undefined {
    const f = this.families.get(`${device}|${family}`);
    if (!f) return undefined;
    if (f.stale >= REFIT_EVERY || (f.stale > 0 && f.law === undefined)) {
      const need = Math.min(3, this.minSamples);
      const points = [];
      for (const h of f.histories) {
        const e = h.estimate();
        if (e && e.kept >= need) points.push({ n: h.work, ms: e.ms });
      }
      f.law = fitPowerLaw(points);
      f.stale = 0;
    }
    return f.law;
  }

  /** Predicted run time of `fp` on `device`: a trusted history, else the regression, else what history there is. */
  predict(fp: Footprint, device: string): Prediction {
    const e = this.estimate(fp, device);
    if (e && e.kept >= this.minSamples) return { ms: e.ms, source: 'history', samples: e.kept };
    const law = this.regression(fp.family, device);
    if (law) return { ms: Math.max(evaluate(law, fp.work), 0), source: 'regression', samples: e?.kept ?? 0 };
    if (e) return { ms: e.ms, source: 'partial', samples: e.kept };
    return NONE;
  }

  transfer(from: string, to: string): TransferModel {
    const k = `${from}>${to}`;
    let t = this.transfers.get(k);
    if (!t) this.transfers.set(k, (t = new TransferModel(priorFit(this.isHost(from), this.isHost(to)))));
    return t;
  }

  addTransfer(from: string, to: string, bytes: number, ms: number): void {
    this.transfer(from, to).add(bytes, ms);
  }

  /** Predicted time to move `bytes` (0 on the same device). */
  predictTransfer(from: string, to: string, bytes: number): number {
    return from === to ? 0 : this.transfer(from, to).predict(bytes);
  }

  transferFit(from: string, to: string): TransferFit {
    return this.transfer(from, to).model();
  }

  /** Forgets everything measured. */
  reset(): void {
    this.ops.clear();
    this.families.clear();
    this.transfers.clear();
  }

  /** Histories held (footprint-device pairs). */
  get size(): number {
    let n = 0;
    for (const m of this.ops.values()) n += m.size;
    return n;
  }

  toJSON(): SavedModels {
    const ops: Record<string, Record<string, { family: string; work: number; samples: number[] }>> = {};
    for (const [device, byKey] of this.ops) {
      const o: Record<string, { family: string; work: number; samples: number[] }> = {};
      for (const [key, h] of byKey) if (h.size > 0) o[key] = { family: h.family, work: h.work, samples: h.samples() };
      ops[device] = o;
    }
    const transfers: Record<string, { samples: Array<[number, number]>; calibrated: boolean; waits?: number[] }> = {};
    for (const [k, t] of this.transfers) {
      const waits = t.excesses();
      if (t.size > 0) transfers[k] = { samples: t.samples().map(([b, ms]) => [b, ms]), calibrated: t.calibrated, ...(waits.length > 0 ? { waits } : {}) };
    }
    return { version: 1, ops, transfers };
  }

  /** Adds saved models for footprints and pairs not measured in this process (live measurements win). */
  load(saved: SavedModels): void {
    for (const [device, byKey] of Object.entries(saved.ops)) {
      for (const [key, { family, work, samples }] of Object.entries(byKey)) {
        if (!this.ops.get(device)?.has(key)) this.history(device, key, work, family, samples);
      }
    }
    for (const [k, { samples, calibrated, waits }] of Object.entries(saved.transfers)) {
      const [from, to] = k.split('>') as [string, string];
      const t = this.transfer(from, to);
      if (t.size > 0) continue;
      for (const [b, ms] of samples) t.add(b, ms);
      t.calibrated = calibrated;
      if (Array.isArray(waits)) t.restoreExcesses(waits);
    }
  }
}
