import { firstNumberKey } from './batch-keys.js';
import type { KvBackend, KvWriter } from './kv-backend.js';
import { READABLE_FORMATS, STATE_FORMAT, StateFormat } from './records.js';
import { packValue, storedCodec } from './value-codec.js';

const FORMAT_KEY = 'format';
const formatCodec = storedCodec(StateFormat);

/** A state directory written in a layout this build does not read. */
export class StateFormatError extends Error {
  override readonly name = 'StateFormatError';
  constructor(
    readonly found: number,
    readonly expected: number,
  ) {
    super(`the state directory has format ${Number.isInteger(found) ? found : '(unreadable)'}; this sigmad reads format${READABLE_FORMATS.length > 1 ? 's' : ''} ${READABLE_FORMATS.join(' and ')} (start with an empty --state-db directory, or use the sigmad that wrote it)`);
  }
}

/**
 * The layout version stored in `meta`; an environment without one is format 1 if it holds any
 * journal, outbox or counters, and `undefined` (fresh) otherwise.
 */
export function storedFormat(backend: KvBackend): number | undefined {
  const bytes = backend.get('meta', FORMAT_KEY);
  if (bytes !== undefined) return formatCodec.decode(bytes)?.version ?? Number.NaN;
  const used = backend.get('meta', 'counters') !== undefined || firstNumberKey(backend, 'journal') !== undefined || firstNumberKey(backend, 'outbox') !== undefined;
  return used ? 1 : undefined;
}

/**
 * Throws `StateFormatError` unless the environment is fresh or in a format this build reads;
 * `older` means readable but to be marked current before anything new is written.
 */
export function checkFormat(backend: KvBackend): 'fresh' | 'current' | 'older' {
  const found = storedFormat(backend);
  if (found === undefined) return 'fresh';
  if (found === STATE_FORMAT) return 'current';
  if (READABLE_FORMATS.includes(found)) return 'older';
  throw new StateFormatError(found, STATE_FORMAT);
}

export function writeFormat(w: KvWriter): void {
  w.put('meta', FORMAT_KEY, packValue({ version: STATE_FORMAT }));
}
