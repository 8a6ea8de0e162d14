import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    // `sigmad eval` keeps a per-user compiled-rule cache: spawned ones use this one, not the home directory's.
    env: { XDG_CACHE_HOME: join(tmpdir(), 'sigmad-test-cache') },
  },
});
