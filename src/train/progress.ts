/**
 * A progress bar: on a terminal one line per epoch redrawn each batch (bar, batch count, running
 * metrics, seconds); elsewhere (logs, CI) one line per finished epoch.
 */
import { checkOptions } from '../ir/validate.js';
import type { Backend } from '../backends/backend.js';
import type { Module } from '../nn/module.js';
import type { BatchLogs, Callback, EpochLogs, FitContext, PhaseLogs } from './callback.js';

export interface ProgressOptions {
  /** Where lines go (default process.stdout). */
  write?: (text: string) => void;
  /** Redraw in place (default: whether stdout is a terminal). */
  tty?: boolean;
  /** Bar width in characters (default 24). */
  width?: number;
}

function formatLogs(logs: PhaseLogs): string {
  return Object.entries(logs)
    .map(([k, v]) => (k === 'accuracy' ? `${k} ${(100 * v).toFixed(2)}%` : `${k} ${v.toFixed(4)}`))
    .join('  ');
}

export class ProgressBar<B extends Backend = Backend, M extends Module<B> = Module<B>> implements Callback<B, M> {
  private readonly write: (text: string) => void;
  private readonly tty: boolean;
  private readonly width: number;

  constructor(options: ProgressOptions = {}) {
    checkOptions('ProgressBar', options);
    const stdout = typeof process === 'undefined' ? undefined : process.stdout;
    this.write = options.write ?? ((t) => (stdout ? stdout.write(t) : console.log(t)));
    this.tty = options.tty ?? Boolean(stdout?.isTTY);
    this.width = options.width ?? 24;
  }

  onBatchEnd(ctx: FitContext<B, M>, b: BatchLogs): void {
    if (!this.tty) return;
    const done = Math.round((this.width * b.batch) / b.batches);
    const bar = '█'.repeat(done) + '░'.repeat(this.width - done);
    const phase = b.phase === 'valid' ? ' valid' : '';
    this.write(`\r\x1b[2Kepoch ${ctx.epoch}/${ctx.epochs}${phase} ${bar} ${String(b.batch).padStart(String(b.batches).length)}/${b.batches}  ${formatLogs(b.logs)}  ${b.seconds.toFixed(1)}s`);
  }

  onEpochEnd(ctx: FitContext<B, M>, logs: EpochLogs): void {
    const valid = logs.valid ? `  |  valid ${formatLogs(logs.valid)}` : '';
    const lr = logs.lr === undefined ? '' : `  lr ${logs.lr.toPrecision(3)}`;
    this.write(`${this.tty ? '\r\x1b[2K' : ''}epoch ${logs.epoch}/${ctx.epochs}  ${formatLogs(logs.train)}${valid}${lr}  ${logs.seconds.toFixed(1)}s\n`);
  }
}
