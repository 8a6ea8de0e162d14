import type { DefinitionHashes } from './records.js';

/** The journal event of a `$definitions` record: the complete hash map in force from then on. */
export interface DefinitionsEvent {
  readonly hashes: DefinitionHashes;
}

export function isDefinitionsEvent(x: unknown): x is DefinitionsEvent {
  if (typeof x !== 'object' || x === null || !('hashes' in x)) return false;
  const h: unknown = x.hashes;
  return typeof h === 'object' && h !== null && Object.values(h).every((v) => typeof v === 'string');
}
