/** The hooks fit() calls, and what it tells them. */
import type { Backend } from '../backends/backend.js';
import type { Module } from '../nn/module.js';
import type { Optimizer } from '../optim/optimizer.js';

/** Metric values of one phase ('loss', 'accuracy', ...). */
export type PhaseLogs = Readonly<Record<string, number>>;

export interface EpochLogs {
  /** 1-based. */
  readonly epoch: number;
  readonly train: PhaseLogs;
  readonly valid?: PhaseLogs;
  /** The rate of the epoch's last optimizer step. */
  readonly lr: number | undefined;
  /** Wall time of the epoch (training and validation), from the scheduler's clock. */
  readonly seconds: number;
}

export interface BatchLogs {
  readonly epoch: number;
  /** 1-based, within the epoch. */
  readonly batch: number;
  readonly batches: number;
  readonly phase: 'train' | 'valid';
  /** Running values over the epoch so far. */
  readonly logs: PhaseLogs;
  /** Seconds since the epoch started. */
  readonly seconds: number;
}

export interface FitContext<B extends Backend = Backend, M extends Module<B> = Module<B>> {
  readonly model: M;
  readonly optimizer: Optimizer<B>;
  readonly epochs: number;
  /** The epoch running (1-based), 0 before the first. */
  readonly epoch: number;
  /** Optimizer steps taken in this fit. */
  readonly steps: number;
  readonly history: readonly EpochLogs[];
  /** Ends training after the current epoch. */
  stop(reason?: string): void;
}

export interface Callback<B extends Backend = Backend, M extends Module<B> = Module<B>> {
  onFitStart?(ctx: FitContext<B, M>): void | Promise<void>;
  onEpochStart?(ctx: FitContext<B, M>): void | Promise<void>;
  onBatchEnd?(ctx: FitContext<B, M>, logs: BatchLogs): void | Promise<void>;
  onEpochEnd?(ctx: FitContext<B, M>, logs: EpochLogs): void | Promise<void>;
  onFitEnd?(ctx: FitContext<B, M>): void | Promise<void>;
}

/** 'valid.loss' -> logs.valid.loss. */
export function readLog(logs: EpochLogs, key: string): number | undefined {
  const [phase, name] = key.split('.') as [string, string | undefined];
  if (name === undefined || (phase !== 'train' && phase !== 'valid')) return undefined;
  return logs[phase]?.[name];
}
