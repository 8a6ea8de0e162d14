import Type from 'typebox';
import { literalUnion } from './literal-union.js';

/**
 * The three extract languages shared by enrichers (`extract` + `extract_type`, daemon-semantics §7.1)
 * and dynamic sources (`extract: <jq>` or `{type, expr}`, §11.1).
 */
const EXTRACT_LANGUAGES = ['jq', 'jsonpath', 'cel'] as const;
export const ExtractLanguageSchema = literalUnion(EXTRACT_LANGUAGES);
export type ExtractLanguage = Type.Static<typeof ExtractLanguageSchema>;

/** A dynamic source's `extract`: a plain string is jq; the object form names its language. */
export const ExtractSpecSchema = Type.Union([
  Type.String({ minLength: 1 }),
  Type.Object({ type: ExtractLanguageSchema, expr: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
]);
export type ExtractSpec = Type.Static<typeof ExtractSpecSchema>;
