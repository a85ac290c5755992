/**
 * Starting a replica: a worker thread (shared memory with the coordinator) or a child process
 * (its own environment, so the Vulkan device can be chosen before the instance is created). From
 * the TypeScript sources a thread starts through a small JavaScript entry that registers tsx for
 * that thread, and a process with `--import tsx`; compiled builds start the .js entry directly.
 */
import type { ChildProcess } from 'node:child_process';
import type { Worker } from 'node:worker_threads';
import { importNodeModule } from '../platform.js';
import { ArgumentError } from '../errors.js';
import type { ComputedMessage, FromReplica, StepMessage, ToReplica } from './protocol.js';

export interface ReplicaHost {
  /** 'main': the calling thread itself (one GPU: no thread between the coordinator and its work). */
  readonly kind: 'thread' | 'process' | 'main';
  /** The worker's thread id or the child's pid (0 on the main thread). */
  readonly id: number;
  post(message: ToReplica, transfer?: ArrayBuffer[]): void;
  onMessage(fn: (m: FromReplica) => void): void;
  /** Called once when the thread or process ends, for whatever reason. */
  onExit(fn: (why: string) => void): void;
  /** Ends it now (idempotent); resolves when it has ended. */
  kill(): Promise<void>;
  /** 'main' only: the replica itself, for solo steps called without messages (see Replica.stepNow). */
  readonly direct?: { stepNow(m: StepMessage): Promise<ComputedMessage> };
}

// Computed on use: no top-level side effects, so bundles that do not use DataParallel drop this
// module; names in variables, so bundlers leave `new URL(name, import.meta.url)` alone (Node-only).
function fromSources(): boolean {
  return import.meta.url.endsWith('.ts');
}

function entryUrl(): URL {
  const name = fromSources() ? './replica-entry.ts' : './replica-entry.js';
  return new URL(name, import.meta.url);
}

const BOOTSTRAP = './ts-bootstrap.mjs';

export async function startThread(resourceLimits?: { maxOldGenerationSizeMb?: number }): Promise<ReplicaHost> {
  const { Worker } = await importNodeModule<typeof import('node:worker_threads')>('node:worker_threads');
  const entry = entryUrl();
  const worker: Worker = fromSources()
    ? new Worker(new URL(BOOTSTRAP, import.meta.url), { workerData: { entry: entry.href }, ...(resourceLimits ? { resourceLimits } : {}) })
    : new Worker(entry, resourceLimits ? { resourceLimits } : {});
  let ended = false;
  let endedWith = '';
  const exitFns: Array<(why: string) => void> = [];
  const end = (why: string): void => {
    if (ended) return;
    ended = true;
    endedWith = why;
    for (const fn of exitFns) fn(why);
  };
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      end(`its worker thread exited with code ${code}`);
      resolve();
    });
  });
  worker.on('error', (e) => end(`its worker thread failed: ${e instanceof Error ? e.message : String(e)}`));
  return {
    kind: 'thread',
    id: worker.threadId,
    post: (m, transfer) => {
      if (!ended) worker.postMessage(m, transfer ?? []);
    },
    onMessage: (fn) => worker.on('message', fn),
    onExit: (fn) => {
      if (ended) fn(endedWith);
      else exitFns.push(fn);
    },
    kill: async () => {
      await worker.terminate();
      await exited;
    },
  };
}

/**
 * A replica on the calling thread. Messages pass by reference (the coordinator never changes a
 * message it has sent) and arrive in order, as through a port, on a microtask: after the code that
 * sent them, before any I/O (a macrotask hop cost 20-50 us each way of a GPU step, where the event
 * loop also polls the device's readbacks). It cannot be killed mid-step: kill() stops delivering
 * messages.
 */
export async function startMain(): Promise<ReplicaHost> {
  const { Replica } = await import('./replica.js');
  let ended = false;
  let endedWith = '';
  const exitFns: Array<(why: string) => void> = [];
  const messageFns: Array<(m: FromReplica) => void> = [];
  const end = (why: string): void => {
    if (ended) return;
    ended = true;
    endedWith = why;
    for (const fn of exitFns) fn(why);
  };
  const replica = new Replica({
    shared: true,
    post: (m) => {
      queueMicrotask(() => {
        for (const fn of messageFns) fn(m);
      });
    },
    exit: (code) => end(`closed with code ${code}`),
  });
  return {
    kind: 'main',
    id: 0,
    post: (m) => {
      if (!ended) queueMicrotask(() => replica.receive(m));
    },
    onMessage: (fn) => messageFns.push(fn),
    onExit: (fn) => {
      if (ended) fn(endedWith);
      else exitFns.push(fn);
    },
    kill: async () => end('stopped'),
    direct: {
      stepNow: (m) => (ended ? Promise.reject(new Error(`the replica has ended (${endedWith})`)) : replica.stepNow(m)),
    },
  };
}

export async function startProcess(env: Readonly<Record<string, string | undefined>>): Promise<ReplicaHost> {
  const { fork } = await importNodeModule<typeof import('node:child_process')>('node:child_process');
  const { fileURLToPath } = await importNodeModule<typeof import('node:url')>('node:url');
  const child: ChildProcess = fork(fileURLToPath(entryUrl()), [], {
    execArgv: fromSources() ? ['--import', 'tsx'] : [],
    env: { ...env },
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let ended = false;
  let endedWith = '';
  const exitFns: Array<(why: string) => void> = [];
  const end = (why: string): void => {
    if (ended) return;
    ended = true;
    endedWith = why;
    for (const fn of exitFns) fn(why);
  };
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      end(signal ? `its process (pid ${child.pid}) was killed by ${signal}` : `its process (pid ${child.pid}) exited with code ${code}`);
      resolve();
    });
  });
  child.on('error', (e) => end(`its process failed: ${e.message}`));
  return {
    kind: 'process',
    id: child.pid ?? -1,
    post: (m) => {
      if (!ended && child.connected) child.send(m);
    },
    onMessage: (fn) => child.on('message', (m: FromReplica) => fn(m)),
    onExit: (fn) => {
      if (ended) fn(endedWith);
      else exitFns.push(fn);
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** The task module's URL: a URL, or a file path (absolute, or relative to the working directory). */
export async function taskHref(task: string | URL): Promise<string> {
  if (task instanceof URL) return task.href;
  if (typeof task !== 'string' || task.length === 0) throw new ArgumentError('task must be a URL or a file path of the task module', { op: 'DataParallel' });
  if (/^[a-z][a-z0-9+.-]*:/i.test(task) && !/^[a-z]:[\\/]/i.test(task)) return new URL(task).href;
  // A file path, absolute or relative to the working directory.
  const [{ pathToFileURL }, { resolve }] = await Promise.all([importNodeModule<typeof import('node:url')>('node:url'), importNodeModule<typeof import('node:path')>('node:path')]);
  return pathToFileURL(resolve(task)).href;
}
