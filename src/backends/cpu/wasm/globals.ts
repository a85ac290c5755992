/**
 * The WebAssembly types the published declarations name, for consumers that compile without the
 * DOM lib (Node settings): empty interfaces, which merge with the full ones wherever those exist.
 */
declare global {
  namespace WebAssembly {
    interface Memory {}
    interface Module {}
  }
}

export {};
