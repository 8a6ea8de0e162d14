// streams/enrich: the enrichment stage (daemon-semantics §7) and its four primitives.
export { buildEnricher } from './build-enricher.js';
export type { EnricherBuildDeps } from './build-enricher.js';
export { EnrichStage } from './enrich-stage.js';
export type { EnricherSet } from './enrich-stage.js';
export { EnricherConfigError } from './enricher.js';
export type { Enricher, SourceLookup } from './enricher.js';
