/**
 * The entry of a replica's worker thread or child process: connects a Replica to its
 * coordinator through the thread's port or the process's IPC channel.
 */
import { parentPort } from 'node:worker_threads';
import type { ToReplica } from './protocol.js';
import { Replica, type CoordinatorLink } from './replica.js';

function threadLink(port: NonNullable<typeof parentPort>): CoordinatorLink {
  return {
    shared: true,
    post: (message, transfer) => port.postMessage(message, transfer ?? []),
    exit: (code) => {
      port.close();
      process.exit(code);
    },
  };
}

function processLink(): CoordinatorLink {
  const send = process.send?.bind(process);
  if (!send) throw new Error('a replica process needs an IPC channel (start it through DataParallel)');
  // Orphaned (the coordinator died or closed the channel): end at once.
  process.on('disconnect', () => process.exit(0));
  return {
    shared: false,
    post: (message) => {
      send(message);
    },
    exit: (code) => process.exit(code),
  };
}

const link = parentPort ? threadLink(parentPort) : processLink();
const replica = new Replica(link);
if (parentPort) parentPort.on('message', (m: ToReplica) => replica.receive(m));
else process.on('message', (m: ToReplica) => replica.receive(m));
