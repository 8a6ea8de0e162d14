// Collects the errors and warnings of one rule document, each pointing at file, line/col, rule and key path.
import type { SourceLoc } from '../ast.js';
import { SigmaError } from '../errors.js';
import type { SigmaErrorArea, SigmaWarning } from '../errors.js';
import { locate } from './source-positions.js';
import type { KeyPath, LineCol, PositionIndex } from './source-positions.js';

export class DocumentContext {
  readonly errors: SigmaError[] = [];
  readonly warnings: SigmaWarning[] = [];
  /** The rule's id, else its title, once known; printed as `[rule]` in messages. */
  ruleId: string | undefined;

  constructor(
    readonly file: string,
    readonly doc: number,
    private readonly positions: PositionIndex,
  ) {}

  /**
   * Line and column are looked up when first read: every detection item carries a location, but only
   * the few that are reported need one, and finding positions may mean a second parse of the file.
   */
  loc(path: KeyPath): SourceLoc {
    const loc: SourceLoc = { file: this.file, doc: this.doc, path, ...(this.ruleId !== undefined ? { ruleId: this.ruleId } : {}) };
    const positions = this.positions;
    let at: LineCol | undefined;
    let found = false;
    const find = (): LineCol | undefined => {
      if (!found) at = locate(positions, path);
      found = true;
      return at;
    };
    Object.defineProperty(loc, 'line', { get: () => find()?.line, enumerable: true, configurable: true });
    Object.defineProperty(loc, 'col', { get: () => find()?.col, enumerable: true, configurable: true });
    return loc;
  }

  error(area: SigmaErrorArea, code: string, message: string, path: KeyPath): void {
    this.errors.push(new SigmaError(area, code, message, this.loc(path)));
  }

  warn(code: string, message: string, path: KeyPath): void {
    this.warnings.push({ code, message, loc: this.loc(path) });
  }

  /** Record an error thrown by a collaborator (the modifier chain); a missing location is filled in. */
  adopt(e: SigmaError, path: KeyPath): void {
    this.errors.push(e.loc ? e : new SigmaError(e.area, e.code, e.message, this.loc(path), { cause: e.cause }));
  }

  get failed(): boolean {
    return this.errors.length > 0;
  }
}
