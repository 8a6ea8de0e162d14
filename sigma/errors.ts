import type { SourceLoc } from './ast.js';

export type SigmaErrorArea = 'parse' | 'condition' | 'modifier' | 'value' | 'pipeline' | 'correlation' | 'filter' | 'compile';

/** One root error for the rule language; `code` is stable, `loc` says where. */
export class SigmaError extends Error {
  override readonly name: string = 'SigmaError';
  constructor(
    readonly area: SigmaErrorArea,
    readonly code: string,
    message: string,
    readonly loc?: SourceLoc,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** `file:line:col [rule id] detection.sel.Image|endswith: message` */
  override toString(): string {
    return formatSigmaError(this);
  }
}

export function formatSigmaError(e: SigmaError): string {
  const l = e.loc;
  if (!l) return e.message;
  const pos = l.line !== undefined ? `${l.file}:${l.line}${l.col !== undefined ? `:${l.col}` : ''}` : l.file;
  const rule = l.ruleId !== undefined ? ` [${l.ruleId}]` : '';
  const path = l.path.length > 0 ? ` ${l.path.join('.')}:` : '';
  return `${pos}${rule}${path} ${e.message}`;
}

/**
 * Errors grouped by the rule document they reject (file and document index), in first-seen order, so a
 * rule with several problems counts once. An error that names no document is a group of its own.
 */
export function errorsByRule(errors: readonly SigmaError[]): SigmaError[][] {
  const groups = new Map<string, SigmaError[]>();
  errors.forEach((e, i) => {
    const key = e.loc?.doc !== undefined ? `${e.loc.file}\0${e.loc.doc}` : `#${i}`;
    const group = groups.get(key);
    if (group) group.push(e);
    else groups.set(key, [e]);
  });
  return [...groups.values()];
}

/** A non-fatal finding attached to a loaded rule. */
export interface SigmaWarning {
  readonly code: string;
  readonly message: string;
  readonly loc?: SourceLoc;
}
