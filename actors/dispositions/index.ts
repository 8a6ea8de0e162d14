export { BUCKET_SECONDS, checkDisposition, DispositionStore,  VERDICTS } from './store.js';
export type { Disposition, DispositionConfig, DispositionStatePiece, RuleRatio } from './store.js';
