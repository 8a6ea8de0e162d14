import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: a single one on 2 cores, and the core idles
    // while that worker's file waits on a daemon, a timer or a socket. One per core keeps them busy.
    maxWorkers: Math.max(2, availableParallelism()),
    setupFiles: ['test/setup/worker-cache.ts'],
    globalSetup: ['test/setup/build.ts'],
  },
});
