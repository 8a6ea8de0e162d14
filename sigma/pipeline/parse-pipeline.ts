// pySigma processing-pipeline YAML → Pipeline. Collects every error (with file and key path) instead of
// stopping at the first one; unknown keys, types and parameters are errors.
import type { SourceLoc } from '../ast.js';
import { SigmaError } from '../errors.js';
import { checkParams } from './check-params.js';
import type { Locate } from './check-params.js';
import { expressionIdentifiers, parseConditionExpression } from './condition-expression.js';
import { buildConditionSet } from './condition-set.js';
import type { ConditionCombination } from './condition-set.js';
import { detectionItemConditions, fieldNameConditions, ruleConditions } from './conditions/index.js';
import { CONDITION_KINDS, ITEM_KEYS, ItemFields, PipelineFile } from './pipeline-schema.js';
import type { ConditionKind } from './pipeline-schema.js';
import { transformations } from './transformations/index.js';
import type { ConditionSet, CreateContext, Pipeline, ProcessingItem, Transformation, UnitDef } from './types.js';
import { readYaml } from './yaml-source.js';
import { expandSourceVars, spliceSourceIncludes } from './source-refs.js';
import type { SourceValues } from './source-refs.js';

type Path = readonly (string | number)[];

const CONDITION_KEYS = (k: ConditionKind) =>
  [`${k}_conditions`, `${k}_cond_op`, `${k}_cond_not`, `${k}_cond_expr`] as const;
// rsigma spells the expression key out in full.
const ITEM_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  CONDITION_KINDS.map((k) => [`${k}_cond_expression`, `${k}_cond_expr`]),
);

export interface ParsedPipeline {
  readonly pipeline?: Pipeline;
  readonly errors: SigmaError[];
}

/**
 * With `sources` (the daemon, which has loaded any `sources:` declared here as deprecated `--source`
 * entries), `${source.*}` references in `vars` and `include:` items are expanded first.
 */
export function parsePipelineText(text: string, file: string, sources?: SourceValues): ParsedPipeline {
  const { source, errors } = readYaml(text, file);
  if (!source) return { errors };
  return parsePipelineValue(sources === undefined ? source.value : withSourceValues(source.value, sources, source.locate, errors), file, source.locate, errors);
}

/** The pipeline data with source references expanded and its deprecated `sources:` block set aside. */
function withSourceValues(input: unknown, sources: SourceValues, locate: Locate, errors: SigmaError[]): unknown {
  if (!isRecord(input)) return input;
  const { sources: _declared, ...rest } = input;
  const spliced = spliceSourceIncludes(rest['transformations'], sources);
  for (const p of spliced.problems) errors.push(new SigmaError('pipeline', 'pipeline_include', p.message, locate(['transformations', p.index, 'include'])));
  return {
    ...rest,
    ...(rest['vars'] !== undefined ? { vars: expandSourceVars(rest['vars'], sources.values) } : {}),
    ...(rest['transformations'] !== undefined ? { transformations: spliced.items } : {}),
  };
}

/** Parses already-decoded pipeline data (built-in pipelines are written as data). */
export function parsePipelineValue(input: unknown, file: string, locate: Locate = (path) => ({ file, path }), errors: SigmaError[] = []): ParsedPipeline {
  // An empty file is an empty pipeline.
  const raw = input ?? {};
  if (errors.length > 0) return { errors };
  if (typeof raw === 'object' && !Array.isArray(raw) && Object.hasOwn(raw, 'sources')) {
    errors.push(
      new SigmaError(
        'pipeline',
        'pipeline_declares_sources',
        "pipelines may not declare 'sources' (declare them in a --source file and reference them as ${source.<id>} in vars)",
        locate(['sources']),
      ),
    );
    return { errors };
  }
  if (!isRecord(raw)) {
    errors.push(new SigmaError('pipeline', 'pipeline_not_mapping', 'a processing pipeline must be a YAML mapping', locate([])));
    return { errors };
  }
  const present = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== null));
  const top = checkParams(PipelineFile, present, 'processing pipeline', [], locate, errors, 'key') as PipelineFile | undefined;
  if (!top) return { errors };
  const items = new ItemParser(file, locate, errors).items(top.transformations ?? [], ['transformations']);
  if (errors.length > 0) return { errors };
  return { pipeline: { name: top.name, file, priority: top.priority ?? 0, vars: top.vars ?? {}, items }, errors };
}

class ItemParser {
  constructor(
    private readonly file: string,
    private readonly locate: Locate,
    private readonly errors: SigmaError[],
  ) {}

  private err(code: string, message: string, path: Path): void {
    this.errors.push(new SigmaError('pipeline', code, message, this.locate(path)));
  }

  items(raw: unknown, path: Path): readonly ProcessingItem[] {
    if (!Array.isArray(raw)) {
      this.err('pipeline_invalid_key', 'processing items must be a list', path);
      return [];
    }
    const out: ProcessingItem[] = [];
    raw.forEach((entry: unknown, i) => {
      const item = this.item(entry, [...path, i]);
      if (item) out.push(item);
    });
    return out;
  }

  private item(raw: unknown, path: Path): ProcessingItem | undefined {
    if (!isRecord(raw)) {
      this.err('pipeline_invalid_item', 'a processing item must be a mapping', path);
      return undefined;
    }
    const rawFields: Record<string, unknown> = {};
    const params: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) {
      const key = ITEM_ALIASES[k] ?? k;
      if (ITEM_KEYS.includes(key)) rawFields[key] = v;
      else params[k] = v;
    }
    const fields = checkParams(ItemFields, rawFields, 'processing item', path, this.locate, this.errors, 'key') as ItemFields | undefined;
    if (!fields) return undefined;
    const loc: SourceLoc = this.locate(path);
    const def = this.lookup(transformations, fields.type, 'transformation', [...path, 'type']);
    const before = this.errors.length;
    const ruleConds = this.conditions('rule', ruleConditions, fields, path);
    const itemConditions = this.conditions('detection_item', detectionItemConditions, fields, path);
    const fieldConditions = this.conditions('field_name', fieldNameConditions, fields, path);
    if (!def) return undefined;
    const transformation = this.create<Transformation>(def, params, `transformation '${def.type}'`, path, loc);
    if (!transformation || !ruleConds || !itemConditions || !fieldConditions || this.errors.length > before) return undefined;
    return { id: fields.id ?? `${this.file}#${path.join('.')}`, type: def.type, transformation, ruleConditions: ruleConds, itemConditions, fieldConditions, loc };
  }

  private lookup<R>(registry: Readonly<Record<string, UnitDef<R>>>, type: unknown, what: string, path: Path): UnitDef<R> | undefined {
    if (typeof type !== 'string') {
      this.err('pipeline_missing_type', `a ${what} needs a 'type'`, path.slice(0, -1));
      return undefined;
    }
    const def = Object.hasOwn(registry, type) ? registry[type] : undefined;
    if (!def) this.err('pipeline_unknown_type', `unknown ${what} type '${type}' (known: ${Object.keys(registry).join(', ')})`, path);
    return def;
  }

  private create<R>(def: UnitDef<R>, raw: Record<string, unknown>, what: string, path: Path, loc: SourceLoc): R | undefined {
    const params = checkParams(def.params, raw, what, path, this.locate, this.errors);
    if (params === undefined) return undefined;
    const ctx: CreateContext = { loc, parseItems: (items, at) => this.items(items, at) };
    try {
      // `params` was checked against `def.params`, the schema `create`'s parameter type is derived from.
      return (def.create as (p: unknown, c: CreateContext) => R)(params, ctx);
    } catch (e) {
      this.err('pipeline_invalid_parameter', `${what}: ${e instanceof Error ? e.message : String(e)}`, path);
      return undefined;
    }
  }

  private conditions<P>(
    kind: ConditionKind,
    registry: Readonly<Record<string, UnitDef<P>>>,
    fields: ItemFields,
    path: Path,
  ): ConditionSet<P> | undefined {
    const [listKey, opKey, notKey, exprKey] = CONDITION_KEYS(kind);
    const raw = fields[listKey];
    const op = fields[opKey];
    const not = fields[notKey] ?? false;
    const exprText = fields[exprKey];
    const before = this.errors.length;
    const entries: { id: string; raw: unknown; path: Path }[] = [];
    if (Array.isArray(raw)) raw.forEach((c: unknown, i) => entries.push({ id: String(i), raw: c, path: [...path, listKey, i] }));
    else if (raw) for (const [k, c] of Object.entries(raw)) entries.push({ id: k, raw: c, path: [...path, listKey, k] });
    const conditions: { id: string; predicate: P }[] = [];
    for (const e of entries) {
      if (!isRecord(e.raw)) {
        this.err('pipeline_invalid_condition', 'a condition must be a mapping with a type', e.path);
        continue;
      }
      const { type, ...params } = e.raw;
      const def = this.lookup(registry, type, `${kind.replace('_', '-')} condition`, [...e.path, 'type']);
      if (!def) continue;
      const predicate = this.create<P>(def, params, `${kind.replace('_', '-')} condition '${def.type}'`, e.path, this.locate(e.path));
      if (predicate !== undefined) conditions.push({ id: e.id, predicate });
    }
    let combination: ConditionCombination = { kind: 'list', op: op ?? 'and', not };
    if (exprText !== undefined) {
      if (op !== undefined) this.err('pipeline_invalid_item', `'${opKey}' and '${exprKey}' exclude each other`, [...path, opKey]);
      if (raw === undefined || Array.isArray(raw)) {
        this.err('pipeline_invalid_item', `'${exprKey}' needs the conditions given as a mapping from id to condition`, [...path, exprKey]);
      } else {
        try {
          const expr = parseConditionExpression(exprText);
          const used = expressionIdentifiers(expr);
          for (const u of used) {
            if (!Object.hasOwn(raw, u)) this.err('pipeline_invalid_item', `'${exprKey}' refers to undefined condition '${u}'`, [...path, exprKey]);
          }
          for (const e of entries) {
            if (!used.has(e.id)) this.err('pipeline_invalid_item', `condition '${e.id}' is not used in '${exprKey}'`, e.path);
          }
          combination = { kind: 'expr', expr };
        } catch (e) {
          this.err('pipeline_invalid_item', e instanceof Error ? e.message : String(e), [...path, exprKey]);
        }
      }
    }
    if (this.errors.length > before) return undefined;
    return buildConditionSet(conditions, combination);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
