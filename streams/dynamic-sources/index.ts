// Dynamic pipeline sources (daemon-semantics §11): fetchers, formats, and the scheduler hosting one
// refresh actor per source.
export { createSourceResolver } from './resolve-source.js';
export type { SourceResolver } from './resolve-source.js';
export { SourceError } from './source-error.js';
export { parseSourceText } from './source-format.js';
export { SourceScheduler } from './source-scheduler.js';
export type { ResolveAllOutcome, SourceChange } from './source-scheduler.js';
export { DEFAULT_SOURCE_TIMEOUT_MS, MAX_SOURCE_BYTES } from './source-spec.js';
export type { SourceFormat, SourceSpec, SourceTarget } from './source-spec.js';
export { subscribePush } from './fetch/nats-push.js';
export { listenResolveControl, RESOLVE_CONTROL_SUBJECT } from './control-subject.js';
