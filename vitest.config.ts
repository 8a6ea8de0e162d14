import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files too heavy for `npm test`'s 15-minute budget on 2 cores: `npm run test:heavy` runs them
 * (README "Tests"): the cluster lanes with an alert pipeline, risk or API silences start several daemons each.
 */
const HEAVY = ['test/e2e/cluster-stateful.test.ts', 'test/e2e/cluster-silences.test.ts'];

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, ...(process.env['SIGMAD_HEAVY'] === '1' ? [] : HEAVY)],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // vitest's default is one worker fewer than the cores: a single one on 2 cores, and the core idles
    // while that worker's file waits on a daemon, a timer or a socket. One per core keeps them busy.
    maxWorkers: Math.max(2, availableParallelism()),
    setupFiles: ['test/setup/worker-cache.ts'],
  },
});
