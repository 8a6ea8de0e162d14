// What differs between the two targets: how a field of the event is read, how the scalar leaves of the
// whole event are walked (keywords), pattern matching, numbers, regexes, networks and time. Everything
// above this file (items, conditions, correlations) is written once against this interface.
import type { StringPart } from '../ast.js';
import { globSource } from '../engine/text-matchers.js';
import type { IpNetwork } from '../value/index.js';
import { formatIpNetwork } from '../value/index.js';
import { postgresRegex, sqliteRegex, type TranslatedRegex } from './regex-sql.js';
import { identifier, junction, sqlString, Unconvertible } from './sql-text.js';

export type SqlTarget = 'postgres' | 'sqlite';
export const SQL_TARGETS: readonly SqlTarget[] = ['postgres', 'sqlite'];

export interface ConvertOptions {
  readonly table: string;
  readonly schema?: string;
  /** Event time for correlations. */
  readonly timestampField: string;
  /** JSON/JSONB column holding the event; absent: every field is a column of its own. */
  readonly jsonField?: string;
}

export const DEFAULT_CONVERT_OPTIONS: ConvertOptions = { table: 'security_events', timestampField: 'time' };

/** One value of the event as SQL: its text (NULL when absent or null) and JSON type, if it has one. */
export interface Leaf {
  readonly text: string;
  /** SQL for the JSON type name; null for plain columns (untyped). */
  readonly type: string | null;
}

type LeafKind = 'string' | 'number' | 'boolean';

export interface Dialect {
  readonly target: SqlTarget;
  field(name: string): Leaf;
  /** True when the field is present (a JSON null included). */
  exists(name: string): string;
  /** `EXISTS (SELECT 1 FROM <keyword leaves> WHERE predicate(leaf))`. */
  anyKeywordLeaf(predicate: (leaf: Leaf) => string): string;
  /** The leaf's type is one of `kinds`, or null when the leaf is untyped. */
  typeIs(leaf: Leaf, kinds: readonly LeafKind[]): string | null;
  /** Case-insensitive or cased match of normalised pattern parts (with wildcards). */
  pattern(text: string, parts: readonly StringPart[], cased: boolean): string;
  /** Several wildcard patterns (no windash positions) OR-ed in one test that reads the value once. */
  patternAny(text: string, patterns: readonly (readonly StringPart[])[], cased: boolean): string;
  /** Case-insensitive text (the engine lowercases both sides). */
  lower(text: string): string;
  regex(text: string, re: TranslatedRegex): string;
  /** The leaf as a number when it is a JSON number or a strict decimal string, else NULL. */
  numeric(text: string): string;
  cidr(text: string, network: IpNetwork): string;
  /** Position of `needle` in `hay` (1-based, 0 when absent). */
  position(hay: string, needle: string): string;
  /** Event time of a row as a number of milliseconds. */
  timeMs(): string;
  readonly relation: string;
}

// The engine's decimal grammar (event-text.ts `numericValue`), so strings like ' 16' or '0x10' are no numbers.
const DECIMAL = '^[-+]?([0-9]+([.][0-9]*)?|[.][0-9]+)([eE][-+]?[0-9]+)?$';
const OCTET = '(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const IPV4 = `^${OCTET}([.]${OCTET}){3}$`;

/** A strict IPv6 literal (one `::` at most, eight groups without it), so casting it to inet cannot fail. */
function ipv6Pattern(): string {
  const h = '[0-9A-Fa-f]{1,4}';
  const groups = (n: number): string => (n === 0 ? '' : n === 1 ? h : `(${h}:){${n - 1}}${h}`);
  const alternatives = [groups(8)];
  for (let left = 0; left <= 7; left++) {
    for (let right = 0; left + right <= 7; right++) alternatives.push(`${groups(left)}::${groups(right)}`);
  }
  return `^(${alternatives.join('|')})$`;
}
const IPV6 = ipv6Pattern();

function likePattern(parts: readonly StringPart[]): string {
  let out = '';
  for (const p of parts) {
    if (p.t === 'lit') out += p.s.replace(/[\\%_]/g, '\\$&');
    else if (p.t === 'any') out += '%';
    else if (p.t === 'one') out += '_';
    else throw new Error(`${p.t} part in a LIKE pattern`);
  }
  return out;
}

function globPattern(parts: readonly StringPart[]): string {
  let out = '';
  for (const p of parts) {
    if (p.t === 'lit') out += p.s.replace(/[*?[]/g, '[$&]');
    else if (p.t === 'any') out += '*';
    else if (p.t === 'one') out += '?';
    else if (p.t === 'dash') out += '[-/\u2013\u2014\u2015]';
    else throw new Unconvertible(`placeholder %${p.name}% was not resolved by any pipeline`);
  }
  return out;
}

function placeholderFree(parts: readonly StringPart[]): void {
  const ph = parts.find((p) => p.t === 'ph');
  if (ph?.t === 'ph') throw new Unconvertible(`placeholder %${ph.name}% was not resolved by any pipeline`);
}

function relationOf(options: ConvertOptions): string {
  const table = identifier(options.table, 'table');
  return options.schema === undefined ? table : `${identifier(options.schema, 'schema')}.${table}`;
}

/** A field read as a column: one name matching the identifier pattern. */
function columnLeaf(name: string): Leaf {
  return { text: identifier(name, 'field'), type: null };
}

/** What both targets share: the relation, the JSON column (checked names) and case folding. */
abstract class BaseDialect {
  readonly relation: string;
  protected readonly json: string | undefined;
  constructor(protected readonly options: ConvertOptions) {
    this.relation = relationOf(options);
    this.json = options.jsonField === undefined ? undefined : identifier(options.jsonField, 'json_field');
  }

  lower(text: string): string {
    return `lower(${text})`;
  }

  protected keywordColumn(): string {
    if (this.json === undefined) throw new Unconvertible('keyword search needs a JSON column (-O json_field=...)');
    return this.json;
  }
}

class Postgres extends BaseDialect implements Dialect {
  readonly target = 'postgres';

  /** The jsonb value of a field: an exact top-level key wins over the dotted path (engine field-path.ts). */
  private jsonb(name: string): string {
    const doc = this.json as string;
    const flat = `${doc}->${sqlString(name)}`;
    if (!name.includes('.')) return flat;
    const path = `{${name.split('.').map((s) => `"${s.replace(/["\\]/g, '\\$&')}"`).join(',')}}`;
    return `COALESCE(${flat}, ${doc}#>${sqlString(path)})`;
  }

  field(name: string): Leaf {
    if (this.json === undefined) return columnLeaf(name);
    const j = this.jsonb(name);
    return { text: name.includes('.') ? `(${j} #>> '{}')` : `${this.json}->>${sqlString(name)}`, type: `jsonb_typeof(${j})` };
  }

  exists(name: string): string {
    return this.json === undefined ? `${columnLeaf(name).text} IS NOT NULL` : `${this.jsonb(name)} IS NOT NULL`;
  }

  anyKeywordLeaf(predicate: (leaf: Leaf) => string): string {
    const leaf: Leaf = { text: `(kw.v #>> '{}')`, type: 'jsonb_typeof(kw.v)' };
    return `EXISTS (SELECT 1 FROM jsonb_path_query(${this.keywordColumn()}, 'strict $.**') AS kw(v) WHERE jsonb_typeof(kw.v) IN ('string', 'number', 'boolean') AND ${predicate(leaf)})`;
  }

  typeIs(leaf: Leaf, kinds: readonly LeafKind[]): string | null {
    return leaf.type === null ? null : `${leaf.type} IN (${kinds.map(sqlString).join(', ')})`;
  }

  pattern(text: string, parts: readonly StringPart[], cased: boolean): string {
    placeholderFree(parts);
    // LIKE has no character class: windash positions go through an anchored regex.
    if (parts.some((p) => p.t === 'dash')) return `${text} ${cased ? '~' : '~*'} ${sqlString(globSource(parts))}`;
    return `${text} ${cased ? 'LIKE' : 'ILIKE'} ${sqlString(likePattern(parts))} ESCAPE '\\'`;
  }

  patternAny(text: string, patterns: readonly (readonly StringPart[])[], cased: boolean): string {
    // lower() once per value and plain LIKE: ILIKE lowercases the value again for every pattern.
    const list = patterns.map((p) => sqlString(cased ? likePattern(p) : likePattern(p).toLowerCase())).join(', ');
    return `${cased ? text : `lower(${text})`} LIKE ANY (ARRAY[${list}])`;
  }

  regex(text: string, re: TranslatedRegex): string {
    return `${text} ~ ${sqlString(postgresRegex(re))}`;
  }

  numeric(text: string): string {
    return `CASE WHEN ${text} ~ ${sqlString(DECIMAL)} THEN (${text})::numeric END`;
  }

  cidr(text: string, network: IpNetwork): string {
    const guard = network.family === 4 ? IPV4 : IPV6;
    return `CASE WHEN ${text} ~ ${sqlString(guard)} THEN (${text})::inet <<= ${sqlString(formatIpNetwork(network))}::cidr ELSE FALSE END`;
  }

  position(hay: string, needle: string): string {
    return `strpos(${hay}, ${needle})`;
  }

  timeMs(): string {
    const t = this.field(this.options.timestampField).text;
    return `(extract(epoch FROM (${t})::timestamptz) * 1000)`;
  }
}

class Sqlite extends BaseDialect implements Dialect {
  readonly target = 'sqlite';

  /** The JSON path of a field; a dotted name is tried as one key first (engine field-path.ts). */
  private path(name: string): string {
    if (name.includes('"')) throw new Unconvertible(`field name ${name} cannot be written as a SQLite JSON path`);
    const flat = sqlString(`$."${name}"`);
    if (!name.includes('.')) return flat;
    const nested = sqlString(`$.${name.split('.').map((s) => `"${s}"`).join('.')}`);
    return `iif(json_type(${this.json as string}, ${flat}) IS NULL, ${nested}, ${flat})`;
  }

  field(name: string): Leaf {
    if (this.json === undefined) return columnLeaf(name);
    const doc = this.json;
    const p = this.path(name);
    const type = `json_type(${doc}, ${p})`;
    // json_extract reads JSON booleans as 1 and 0; the engine reads them as `true` and `false`.
    return { text: `CASE ${type} WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE json_extract(${doc}, ${p}) END`, type };
  }

  exists(name: string): string {
    return this.json === undefined ? `${columnLeaf(name).text} IS NOT NULL` : `json_type(${this.json}, ${this.path(name)}) IS NOT NULL`;
  }

  anyKeywordLeaf(predicate: (leaf: Leaf) => string): string {
    const leaf: Leaf = { text: `iif(kw.type IN ('true', 'false'), kw.type, kw.atom)`, type: 'kw.type' };
    return `EXISTS (SELECT 1 FROM json_tree(${this.keywordColumn()}) AS kw WHERE kw.type IN ('text', 'integer', 'real', 'true', 'false') AND ${predicate(leaf)})`;
  }

  typeIs(leaf: Leaf, kinds: readonly LeafKind[]): string | null {
    if (leaf.type === null) return null;
    const names = kinds.flatMap((k) => (k === 'string' ? ['text'] : k === 'number' ? ['integer', 'real'] : ['true', 'false']));
    return `${leaf.type} IN (${names.map(sqlString).join(', ')})`;
  }

  pattern(text: string, parts: readonly StringPart[], cased: boolean): string {
    placeholderFree(parts);
    const glob = globPattern(parts);
    return cased ? `${text} GLOB ${sqlString(glob)}` : `lower(${text}) GLOB ${sqlString(glob.toLowerCase())}`;
  }

  patternAny(text: string, patterns: readonly (readonly StringPart[])[], cased: boolean): string {
    // The value is read from the JSON once, not once per pattern.
    const globs = patterns.map((p) => `v GLOB ${sqlString(cased ? globPattern(p) : globPattern(p).toLowerCase())}`);
    return `EXISTS (SELECT 1 FROM (SELECT ${cased ? text : `lower(${text})`} AS v) WHERE ${junction('OR', globs)})`;
  }

  regex(text: string, re: TranslatedRegex): string {
    const { pattern, lowerText } = sqliteRegex(re);
    return `${lowerText ? `lower(${text})` : text} REGEXP ${sqlString(pattern)}`;
  }

  numeric(text: string): string {
    return `CASE WHEN ${text} REGEXP ${sqlString(DECIMAL)} THEN CAST(${text} AS REAL) END`;
  }

  cidr(): string {
    throw new Unconvertible('cidr has no SQLite form (no network type)');
  }

  position(hay: string, needle: string): string {
    return `instr(${hay}, ${needle})`;
  }

  timeMs(): string {
    const t = this.field(this.options.timestampField).text;
    return `((julianday(${t}) - 2440587.5) * 86400000.0)`;
  }
}

export function dialectFor(target: SqlTarget, options: ConvertOptions): Dialect {
  return target === 'postgres' ? new Postgres(options) : new Sqlite(options);
}

/** Throws `InvalidIdentifier` for a table, schema or JSON column name failing the contract's pattern. */
export function checkConvertOptions(options: ConvertOptions): void {
  relationOf(options);
  if (options.jsonField !== undefined) identifier(options.jsonField, 'json_field');
}
