// Compiles a rule set and stores its compiled-rule cache entry on a thread of its own (issue 19 §2): the
// compile's garbage (parsed documents, every rule's matchers, the automata's build structures) dies with
// this thread instead of staying resident in the daemon's main thread after it built from the entry.
import { parentPort, workerData } from 'node:worker_threads';
import type { EntryWorkerData, EntryWorkerReply } from './entry-compile.js';
import { encodeCachedRules, ruleCacheKey, writeCachedRules } from './rule-cache.js';
import { buildRuleSetFrom } from './rule-inputs.js';

const { inputs, dir } = workerData as EntryWorkerData;
const port = parentPort;
if (port === null) throw new Error('entry-worker must run as a worker thread');
const post = (reply: EntryWorkerReply): void => port.postMessage(reply);
const built = buildRuleSetFrom(inputs, undefined, true);
if (built.prepared === undefined) {
  // A build with problems is not stored: the caller compiles again, on its own thread, for the full report.
  post({ entry: undefined });
} else {
  const key = ruleCacheKey(inputs);
  const entry = encodeCachedRules(key, built.prepared);
  try {
    writeCachedRules(dir, key, entry);
    post({ entry });
  } catch (error) {
    post({ entry, storeError: error instanceof Error ? error.message : String(error) });
  }
}
