// Engine extension knobs of a correlation (daemon-semantics §19), written under `correlation:` or as
// `svc.<key>` custom attributes; the `correlation:` section wins. They are collected as written: the
// correlation engine owns their schema and resolves them. Checking that schema here reports a bad value
// where it was written.
import { CorrelationRuleOptionsSchema } from '../correlation/index.js';
import type { DocumentContext } from './document-context.js';
import { setOwn } from './plain-data.js';
import type { PlainObject } from './plain-data.js';
import { schemaProblems } from './schema-problems.js';
import type { KeyPath } from './source-positions.js';
import { compileOnUse } from '../../protocol/index.js';

const checkOptions = compileOnUse(CorrelationRuleOptionsSchema);
export const CORRELATION_OPTION_KEYS: readonly string[] = Object.keys(CorrelationRuleOptionsSchema.properties);
const CUSTOM_ATTRIBUTE_PREFIX = 'svc.';

export function collectCorrelationOptions(
  section: Readonly<Record<string, unknown>>,
  custom: Readonly<Record<string, unknown>>,
  ctx: DocumentContext,
): Readonly<Record<string, unknown>> | undefined {
  const options: PlainObject = {};
  const writtenAt = new Map<string, KeyPath>();
  for (const key of CORRELATION_OPTION_KEYS) {
    const attribute = `${CUSTOM_ATTRIBUTE_PREFIX}${key}`;
    if (Object.hasOwn(section, key)) {
      setOwn(options, key, section[key]);
      writtenAt.set(key, ['correlation', key]);
    } else if (Object.hasOwn(custom, attribute)) {
      setOwn(options, key, custom[attribute]);
      writtenAt.set(key, [attribute]);
    }
  }
  const problems = schemaProblems(checkOptions, options);
  for (const p of problems) {
    const [key, ...rest] = p.path;
    ctx.error('correlation', 'InvalidOption', p.message, [...(writtenAt.get(String(key)) ?? []), ...rest]);
  }
  return problems.length === 0 ? options : undefined;
}
