import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // lavapipe (software Vulkan) and the worker pool make some cases slow on 2 cores.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Two files at a time: each may start a worker pool or a GPU device of its own.
    maxWorkers: 2,
  },
});
