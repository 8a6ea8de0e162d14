// The enrichers file (`--enrichers PATH`, daemon-semantics §7.1): read, checked strictly and built
// into an EnricherSet. Every error names the file, the entry id and the key (exit 3 at start-up; a
// reload keeps the set in force).
import { AlertConfigError } from '../actors/index.js';
import { EnricherEntrySchema, EnrichersFileSchema } from '../protocol/index.js';
import type { EnricherEntry } from '../protocol/index.js';
import { buildEnricher, EnricherConfigError } from '../streams/index.js';
import type { Enricher, EnricherBuildDeps, EnricherSet } from '../streams/index.js';
import { entryId, parseStrictConfig, readConfigText, strictProblem } from './alert-pipeline-file.js';

/** `max_concurrent_enrichments` when unset or 0 (§7.1). */
const DEFAULT_MAX_CONCURRENT = 16;

/** Reads and builds the file; throws AlertConfigError. */
export async function readEnrichers(path: string, deps: EnricherBuildDeps): Promise<EnricherSet> {
  const file = parseStrictConfig(EnrichersFileSchema, await readConfigText(path), path, () => undefined);
  const enrichers: Enricher[] = [];
  for (const [index, raw] of (file.enrichers ?? []).entries()) {
    const where = `${path}: enricher ${entryId(raw, index)}:`;
    const problem = strictProblem(EnricherEntrySchema, raw, 'the entry');
    if (problem !== undefined) throw new AlertConfigError(`${where} ${problem}`);
    try {
      // Checked against the schema just above.
      enrichers.push(await buildEnricher(raw as EnricherEntry, deps));
    } catch (error) {
      if (error instanceof EnricherConfigError) throw new AlertConfigError(`${where} ${error.message}`);
      throw error;
    }
  }
  return { enrichers, maxConcurrent: file.max_concurrent_enrichments || DEFAULT_MAX_CONCURRENT };
}
