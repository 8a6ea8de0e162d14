import type { SigmaDocument, SourceLoc } from '../ast.js';

/** Where a loaded document is, for findings made after parsing (no line numbers are kept that long). */
export function documentLoc(doc: SigmaDocument, path: readonly (string | number)[]): SourceLoc {
  return { file: doc.file, doc: doc.doc, ruleId: doc.id ?? doc.title, path };
}
