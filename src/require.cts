/**
 * What `require('switchyard')` loads: the package is ES modules only (it uses top-level await
 * and loads its worker threads and Dawn by dynamic import), so CommonJS gets a clear error with
 * what to do instead of Node's ERR_PACKAGE_PATH_NOT_EXPORTED.
 */
const error = new Error(
  "switchyard is an ES module package and cannot be loaded with require(): use `import { Cpu } from 'switchyard'` " +
    "in an ES module (.mjs, or \"type\": \"module\" in package.json), or `const { Cpu } = await import('switchyard')` " +
    "from CommonJS (see the README, section 'Installing').",
);
error.name = 'SwitchyardError';
throw error;
