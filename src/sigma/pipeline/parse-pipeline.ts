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
import { transformations } from './transformations/index.js';
import type { ConditionSet, CreateContext, Pipeline, ProcessingItem, Transformation, UnitDef, VarValue } from './types.js';
import { readYaml } from './yaml-source.js';

type Path = readonly (string | number)[];

const TOP_KEYS = ['name', 'priority', 'allowed_backends', 'vars', 'transformations', 'postprocessing', 'finalizers'];
const CONDITION_KINDS = ['rule', 'detection_item', 'field_name'] as const;
type ConditionKind = (typeof CONDITION_KINDS)[number];
const CONDITION_KEYS = (k: ConditionKind): readonly string[] => [`${k}_conditions`, `${k}_cond_op`, `${k}_cond_not`, `${k}_cond_expr`];
const ITEM_KEYS = ['id', 'type', ...CONDITION_KINDS.flatMap(CONDITION_KEYS)];
// rsigma spells the expression key out in full.
const ITEM_ALIASES: Readonly<Record<string, string>> = Object.fromEntries(
  CONDITION_KINDS.map((k) => [`${k}_cond_expression`, `${k}_cond_expr`]),
);

export interface ParsedPipeline {
  readonly pipeline?: Pipeline;
  readonly errors: SigmaError[];
}

export function parsePipelineText(text: string, file: string): ParsedPipeline {
  const { source, errors } = readYaml(text, file);
  if (!source) return { errors };
  return parsePipelineValue(source.value, file, source.locate);
}

/** Parses already-decoded pipeline data (built-in pipelines are written as data). */
export function parsePipelineValue(input: unknown, file: string, locate: Locate = (path) => ({ file, path })): ParsedPipeline {
  const errors: SigmaError[] = [];
  // An empty file is an empty pipeline.
  const raw = input ?? {};
  const err = (code: string, message: string, path: Path): void => {
    errors.push(new SigmaError('pipeline', code, message, locate(path)));
  };
  if (!isRecord(raw)) {
    err('pipeline_not_mapping', 'a processing pipeline must be a YAML mapping', []);
    return { errors };
  }
  for (const key of Object.keys(raw)) {
    if (key === 'sources') err('pipeline_declares_sources', "pipelines may not declare 'sources' (declare them in a --source file and reference them as ${source.<id>} in vars)", [key]);
    else if (!TOP_KEYS.includes(key)) err('pipeline_unknown_key', `unknown key '${key}' (known: ${TOP_KEYS.join(', ')})`, [key]);
  }
  const name = raw['name'];
  if (name !== undefined && typeof name !== 'string') err('pipeline_invalid_key', "'name' must be a string", ['name']);
  const priority = raw['priority'] ?? 0;
  if (typeof priority !== 'number' || !Number.isInteger(priority)) {
    err('pipeline_invalid_key', "'priority' must be an integer", ['priority']);
  }
  const vars = parseVars(raw['vars'], err);
  const parser = new ItemParser(file, locate, errors);
  const items = parser.items(raw['transformations'] ?? [], ['transformations']);
  for (const key of ['postprocessing', 'finalizers', 'allowed_backends']) {
    const v = raw[key];
    if (v !== undefined && v !== null && !Array.isArray(v)) err('pipeline_invalid_key', `'${key}' must be a list`, [key]);
  }
  if (errors.length > 0) return { errors };
  return {
    pipeline: {
      name: typeof name === 'string' ? name : undefined,
      file,
      priority: typeof priority === 'number' ? priority : 0,
      vars,
      items,
    },
    errors,
  };
}

function parseVars(raw: unknown, err: (code: string, message: string, path: Path) => void): Readonly<Record<string, VarValue>> {
  const vars: Record<string, VarValue> = {};
  if (raw === undefined || raw === null) return vars;
  if (!isRecord(raw)) {
    err('pipeline_invalid_key', "'vars' must be a mapping", ['vars']);
    return vars;
  }
  const scalar = (v: unknown): v is string | number => typeof v === 'string' || typeof v === 'number';
  for (const [k, v] of Object.entries(raw)) {
    if (scalar(v)) vars[k] = v;
    else if (Array.isArray(v) && v.every(scalar)) vars[k] = v;
    else err('pipeline_invalid_var', `variable '${k}' must be a string, a number or a list of them`, ['vars', k]);
  }
  return vars;
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
    const fields: Record<string, unknown> = {};
    const params: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(raw)) {
      const key = ITEM_ALIASES[k] ?? k;
      if (ITEM_KEYS.includes(key)) fields[key] = v;
      else params[k] = v;
    }
    const type = fields['type'];
    const id = fields['id'];
    if (id !== undefined && typeof id !== 'string') this.err('pipeline_invalid_item', "'id' must be a string", [...path, 'id']);
    const loc: SourceLoc = this.locate(path);
    const def = this.lookup(transformations, type, 'transformation', [...path, 'type']);
    const before = this.errors.length;
    const ruleConds = this.conditions('rule', ruleConditions, fields, path);
    const itemConditions = this.conditions('detection_item', detectionItemConditions, fields, path);
    const fieldConditions = this.conditions('field_name', fieldNameConditions, fields, path);
    if (!def) return undefined;
    const transformation = this.create<Transformation>(def, params, `transformation '${def.type}'`, path, loc);
    if (!transformation || !ruleConds || !itemConditions || !fieldConditions || this.errors.length > before) return undefined;
    return { id: typeof id === 'string' ? id : `${this.file}#${path.join('.')}`, type: def.type, transformation, ruleConditions: ruleConds, itemConditions, fieldConditions, loc };
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
    fields: Readonly<Record<string, unknown>>,
    path: Path,
  ): ConditionSet<P> | undefined {
    const [listKey, opKey, notKey, exprKey] = CONDITION_KEYS(kind) as [string, string, string, string];
    const raw = fields[listKey];
    const op = fields[opKey] ?? 'and';
    const not = fields[notKey] ?? false;
    const exprText = fields[exprKey];
    const before = this.errors.length;
    if (op !== 'and' && op !== 'or') this.err('pipeline_invalid_item', `'${opKey}' must be 'and' or 'or'`, [...path, opKey]);
    if (typeof not !== 'boolean') this.err('pipeline_invalid_item', `'${notKey}' must be a boolean`, [...path, notKey]);
    const entries: { id: string; raw: unknown; path: Path }[] = [];
    if (Array.isArray(raw)) raw.forEach((c: unknown, i) => entries.push({ id: String(i), raw: c, path: [...path, listKey, i] }));
    else if (isRecord(raw)) for (const [k, c] of Object.entries(raw)) entries.push({ id: k, raw: c, path: [...path, listKey, k] });
    else if (raw !== undefined && raw !== null) this.err('pipeline_invalid_item', `'${listKey}' must be a list or a mapping`, [...path, listKey]);
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
    let combination: ConditionCombination = { kind: 'list', op: op === 'or' ? 'or' : 'and', not: not === true };
    if (exprText !== undefined) {
      if (fields[opKey] !== undefined) this.err('pipeline_invalid_item', `'${opKey}' and '${exprKey}' exclude each other`, [...path, opKey]);
      if (typeof exprText !== 'string' || !isRecord(raw)) {
        this.err('pipeline_invalid_item', `'${exprKey}' needs a string expression over conditions given as a mapping`, [...path, exprKey]);
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
