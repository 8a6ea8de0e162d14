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

/** A non-fatal finding attached to a loaded rule. */
export interface SigmaWarning {
  readonly code: string;
  readonly message: string;
  readonly loc?: SourceLoc;
}
