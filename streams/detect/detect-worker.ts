// A detection worker thread: builds the rule set from main's compiled-rule cache entry (or, when main has
// none or it does not build, from the texts main sent), then evaluates batches in the order they arrive.
// Only pure work happens here; main keeps state, ordering and I/O.
import { parentPort, workerData } from 'node:worker_threads';
import { ByteLines } from '../../protocol/index.js';
import { compileInputFilter, createBatchDetector, detectRules } from './detect-batch.js';
import type { BatchDetector, DetectRules } from './detect-batch.js';
import { buildFromShared, buildRuleSetCached } from './rule-cache.js';
import { buildDetectRules } from './schema-routed.js';
import type { DetectWorkerData, FromWorker, GenerationRules, ToWorker } from './worker-protocol.js';

const data = workerData as DetectWorkerData;
const port = parentPort;
if (port === null) throw new Error('detect-worker must run as a worker thread');
const post = (m: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(m, transfer);
// Set once the input filter is compiled (the end of this file). No top-level await: the bundle is CommonJS.
let detect: BatchDetector;
const cache = data.ruleCache !== undefined ? { dir: data.ruleCache, store: false } : undefined;
const built = new Map<number, DetectRules>();
/** The generation batches are evaluated with; built later when its entry failed and main sends the texts. */
let serving = data.generations[0]?.gen ?? -1;
let batches = 0;

function load(rules: GenerationRules): void {
  const { gen } = rules;
  try {
    if ('entry' in rules) {
      // Main derived the entry's key from this generation's texts: nothing here hashes them again.
      const ruleSet = buildFromShared(rules, rules.entry);
      if (ruleSet === undefined) return post({ type: 'need_inputs', gen });
      built.set(gen, detectRules(ruleSet));
      return post({ type: 'loaded', gen, cache: 'shared', from: 'entry' });
    }
    const { ruleSet, cache: outcome } = buildRuleSetCached(rules.inputs, cache);
    built.set(gen, buildDetectRules(rules.inputs, ruleSet));
    post({ type: 'loaded', gen, cache: outcome, from: 'texts' });
  } catch (error) {
    post({ type: 'load_failed', gen, error: error instanceof Error ? error.message : String(error) });
  }
}

function evaluate(id: number, lines: () => readonly string[], now: number): void {
  if (++batches === data.crashAtBatch) throw new Error(`injected detect-worker crash at batch ${batches}`);
  const rules = built.get(serving);
  if (rules === undefined) return post({ type: 'failed', id, error: 'no rules loaded' });
  try {
    const batch = detect(rules, lines(), now);
    post({ type: 'done', id, batch }, [batch.texts.bytes.buffer, batch.texts.ends.buffer, batch.textLines.buffer, batch.textRules.buffer]);
  } catch (error) {
    post({ type: 'failed', id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  }
}

function receive(m: ToWorker): void {
  switch (m.type) {
    case 'batch':
      return evaluate(m.id, () => m.lines, m.now);
    case 'bytes':
      return evaluate(m.id, () => new ByteLines(m.bytes, m.bounds).texts(), m.now);
    case 'prepare':
      return load(m);
    case 'activate':
      if (!built.has(m.gen)) return;
      serving = m.gen;
      for (const gen of built.keys()) if (gen < m.gen) built.delete(gen);
      return;
    case 'discard':
      built.delete(m.gen);
      return;
  }
}

// Main compiled the same filter before starting the pool, so this does not fail. Messages wait on the port
// until the listener is attached.
void compileInputFilter(data.settings).then((filter) => {
  detect = createBatchDetector(data.settings, filter);
  for (const g of data.generations) load(g);
  port.on('message', receive);
});
