// Worker threads running from the TypeScript sources (tests, tsx): registers tsx's loader for
// this thread, then loads the replica entry. Compiled builds start replica-entry.js directly.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
