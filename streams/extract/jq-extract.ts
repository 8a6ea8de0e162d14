import { JqError, loadJq, type Jq } from 'jq-wasm';
import { collapseOutputs, ExtractCompileError, ExtractEvalError, type Extractor } from './extractor.js';

/** jq's exit status for a program that does not compile (5 is a run-time error). */
const JQ_COMPILE_ERROR = 3;

/**
 * jq through jq-wasm (libraries.md §6: about 1 ms a call and no compiled-program API, so jq stays off
 * the per-event path). Compiling checks the program inside a branch that never runs, so syntax and
 * unknown names are refused at load while a program that would loop or fail on `null` is not run.
 */
export class JqLanguage {
  private constructor(private readonly jq: Jq) {}

  static async load(): Promise<JqLanguage> {
    return new JqLanguage(await loadJq());
  }

  compile(expression: string): Extractor {
    const check = this.jq.raw(null, `if false then (\n${expression}\n) else empty end`);
    if (check.exitCode === JQ_COMPILE_ERROR) throw new ExtractCompileError('jq', expression, describeCompileError(check.stderr, expression));
    const jq = this.jq;
    const outputs = (input: unknown): unknown[] => {
      try {
        return jq.json(input as never, expression);
      } catch (err) {
        const detail = err instanceof JqError ? err.stderr.trim() : String(err);
        throw new ExtractEvalError('jq', expression, detail.replace(/^jq: error \(at [^)]*\): /, ''), { cause: err });
      }
    };
    return { language: 'jq', expression, outputs, evaluate: (input) => collapseOutputs(outputs(input)) };
  }
}

/** jq's first error line, its line number moved back over the wrapper's first line and kept within the expression. */
function describeCompileError(stderr: string, expression: string): string {
  const first = stderr.split('\n', 1)[0] ?? stderr;
  const lines = expression.split('\n').length;
  return first.replace(/^jq: error: /, '').replace(/line (\d+)/, (_, n: string) => `line ${Math.min(lines, Math.max(1, Number(n) - 1))}`);
}
