// `logsource` (sigma-semantics §1.5): the three evaluated keys, free-text definition, custom keys kept.
import Type from 'typebox';
import type { Logsource } from '../ast.js';
import type { DocumentContext } from './document-context.js';
import { setOwn } from './plain-data.js';
import type { PlainObject } from './plain-data.js';
import { schemaProblems } from './schema-problems.js';
import { compileOnUse } from '../../protocol/index.js';

const LogsourceSchema = Type.Object({
  category: Type.Optional(Type.String()),
  product: Type.Optional(Type.String()),
  service: Type.Optional(Type.String()),
  definition: Type.Optional(Type.String()),
});

const checkLogsource = compileOnUse(LogsourceSchema);
const STANDARD = new Set(Object.keys(LogsourceSchema.properties));

export function parseLogsource(value: unknown, ctx: DocumentContext): Logsource | undefined {
  if (value === undefined) {
    ctx.error('parse', 'MissingLogsource', "'logsource' is required", []);
    return undefined;
  }
  const problems = schemaProblems(checkLogsource, value);
  for (const p of problems) ctx.error('parse', 'InvalidLogsource', p.message, ['logsource', ...p.path]);
  if (!checkLogsource.Check(value)) return undefined;
  const { category, product, service, definition } = value;
  if (category === undefined && product === undefined && service === undefined) {
    ctx.error('parse', 'EmptyLogsource', 'logsource needs at least one of category, product or service', ['logsource']);
    return undefined;
  }
  const custom: PlainObject = {};
  for (const [k, v] of Object.entries(value)) if (!STANDARD.has(k)) setOwn(custom, k, v);
  return {
    ...(category !== undefined ? { category } : {}),
    ...(product !== undefined ? { product } : {}),
    ...(service !== undefined ? { service } : {}),
    ...(definition !== undefined ? { definition } : {}),
    ...(Object.keys(custom).length > 0 ? { custom } : {}),
  };
}

/** Every category/product/service `spec` sets is equal (case-insensitively) in `rule` (§1.5 containment). */
export function logsourceContains(spec: Logsource, rule: Logsource): boolean {
  for (const key of ['category', 'product', 'service'] as const) {
    const want = spec[key];
    if (want === undefined) continue;
    const have = rule[key];
    if (have === undefined || have.toLowerCase() !== want.toLowerCase()) return false;
  }
  return true;
}
