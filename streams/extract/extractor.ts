import type { ExtractLanguage } from '../../protocol/index.js';

/**
 * One compiled extract expression (daemon-semantics §7.3, §11.2): compiled once at load, evaluated many
 * times. Zero outputs give null, one output gives itself, several give an array of them.
 */
export interface Extractor {
  readonly language: ExtractLanguage;
  readonly expression: string;
  /** Throws `ExtractEvalError` when the expression fails on this input. */
  evaluate(input: unknown): unknown;
  /** Every output, uncollapsed (input filters: each output is an event). Throws `ExtractEvalError`. */
  outputs(input: unknown): readonly unknown[];
}

/** The expression does not compile; raised at load so the config error can name it. */
export class ExtractCompileError extends Error {
  override readonly name = 'ExtractCompileError';
  constructor(
    readonly language: ExtractLanguage,
    readonly expression: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${language} expression ${JSON.stringify(expression)} does not compile: ${detail}`, options);
  }
}

/** The expression compiled but failed on one input (a jq `error`, a CEL missing key, ...). */
export class ExtractEvalError extends Error {
  override readonly name = 'ExtractEvalError';
  constructor(
    readonly language: ExtractLanguage,
    readonly expression: string,
    detail: string,
    options?: ErrorOptions,
  ) {
    super(`${language} expression ${JSON.stringify(expression)} failed: ${detail}`, options);
  }
}

/** The shared output rule of every language: none → null, one → it, several → all of them. */
export function collapseOutputs(outputs: readonly unknown[]): unknown {
  if (outputs.length === 0) return null;
  if (outputs.length === 1) return outputs[0];
  return outputs;
}

/** The first line of an error message, which is where every one of the three libraries says what went wrong. */
export function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n', 1)[0] ?? text;
}
