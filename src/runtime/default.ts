/** The default runtime's scheduler, for code written before runtimes existed (`scheduler.events$`). */
import { Runtime } from './runtime.js';

export const scheduler = Runtime.default.scheduler;
