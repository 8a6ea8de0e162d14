// `sigmad eval` keeps a per-user compiled-rule cache; the ones tests spawn use a directory of the test
// worker's own instead of the home directory's. One per worker: a store in one worker may evict (delete)
// an entry another worker is listing, which that run would report as a cache warning on stderr.
import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env['XDG_CACHE_HOME'] = join(tmpdir(), 'sigmad-test-cache', `worker-${process.env['VITEST_POOL_ID'] ?? '1'}`);
