export { BUCKET_SECONDS, checkDisposition, DispositionStore, MAX_SEEN_KEYS, VERDICTS } from './store.js';
export type { Disposition, DispositionConfig, DispositionStatePiece, RuleRatio } from './store.js';
