export { BUCKET_SECONDS, checkDisposition, DispositionStore, MAX_SEEN_KEYS, VERDICTS } from './store.js';
export type { Disposition, DispositionConfig, DispositionStatePiece, RecordCheck, RuleRatio, Verdict } from './store.js';
