/**
 * The browser entry (the `browser` condition of the package's exports): the same API as the
 * Node entry. Nothing reachable from here imports a Node module statically: worker threads,
 * node:os and Dawn are loaded only in Node, by specifiers that bundlers do not follow, so a
 * bundle of an app holds none of them. The CPU backend runs inline (no worker threads), on
 * SharedArrayBuffer when the page is cross-origin isolated and on plain ArrayBuffer otherwise.
 */
export * from './index.js';
