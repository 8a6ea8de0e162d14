// YAML text → one plain value per document (YAML 1.2 core schema) plus the position of every node.
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseAllDocuments } from 'yaml';
import type { Document, Node } from 'yaml';
import { SigmaError } from '../errors.js';
import type { SigmaWarning } from '../errors.js';
import { LEADING_ZERO_INT, readBlockYaml } from './block-yaml.js';
import { setOwn } from './plain-data.js';
import { lazyPositions, pathKey } from './source-positions.js';
import type { KeyPath, LineCol, PositionIndex } from './source-positions.js';

/** One YAML document of a file; `value` is plain data (objects, arrays, scalars). */
export interface YamlDocument {
  /** 0-based index of the document in its file. */
  readonly index: number;
  readonly value: unknown;
  readonly positions: PositionIndex;
}

export interface YamlParseResult {
  readonly documents: readonly YamlDocument[];
  readonly errors: readonly SigmaError[];
  readonly warnings: readonly SigmaWarning[];
}

// Defensive bound on alias/nesting depth (sigma-semantics §4.6).
const MAX_DEPTH = 64;

/**
 * Parse every document of `text`; a document with YAML errors is reported and left out. Plain block
 * YAML takes the fast path, with positions found (by the full parse) only if someone asks for one.
 */
export function parseYamlDocuments(text: string, file: string): YamlParseResult {
  const values = readBlockYaml(text);
  if (values === undefined) return parseWithPositions(text, file);
  let full: YamlParseResult | undefined;
  const positionsOf = (index: number) => () => {
    full ??= parseWithPositions(text, file);
    return full.documents.find((d) => d.index === index)?.positions ?? new Map<string, LineCol>();
  };
  return {
    documents: values.map((value, index) => ({ index, value, positions: lazyPositions(positionsOf(index)) })),
    errors: [],
    warnings: [],
  };
}

/**
 * The parser's first line without its trailing ` at line L, column C:` (it introduces a source excerpt
 * that is cut off here; the position is printed from `loc` already).
 */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}

/** The full `yaml` parser: every construct, every error message, the position of every node. */
export function parseWithPositions(text: string, file: string): YamlParseResult {
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, version: '1.2', schema: 'core', intAsBigInt: true, uniqueKeys: true, logLevel: 'silent' });
  const docs = Array.isArray(parsed) ? parsed : [];
  const documents: YamlDocument[] = [];
  const errors: SigmaError[] = [];
  const warnings: SigmaWarning[] = [];
  docs.forEach((doc, index) => {
    if (doc.errors.length > 0) {
      for (const e of doc.errors) {
        const at = lineCounter.linePos(e.pos[0]);
        const code = e.code === 'DUPLICATE_KEY' ? 'DuplicateKey' : 'YamlSyntax';
        const message = firstLine(e.message);
        errors.push(new SigmaError('parse', code, message, { file, doc: index, path: [], line: at.line, col: at.col }));
      }
      return;
    }
    for (const w of doc.warnings) {
      const at = lineCounter.linePos(w.pos[0]);
      const message = firstLine(w.message);
      warnings.push({ code: 'YamlWarning', message, loc: { file, doc: index, path: [], line: at.line, col: at.col } });
    }
    const converter = new NodeConverter(doc, lineCounter, file, index);
    const value = converter.convert(doc.contents, [], 0);
    warnings.push(...converter.warnings);
    if (converter.error) errors.push(converter.error);
    else documents.push({ index, value, positions: converter.positions });
  });
  return { documents, errors, warnings };
}

class NodeConverter {
  readonly positions = new Map<string, LineCol>();
  readonly warnings: SigmaWarning[] = [];
  error: SigmaError | undefined;

  constructor(
    private readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
    private readonly file: string,
    private readonly index: number,
  ) {}

  convert(node: unknown, path: KeyPath, depth: number): unknown {
    if (node === null || node === undefined) return null;
    if (depth > MAX_DEPTH) {
      this.error ??= new SigmaError('parse', 'TooDeep', `YAML nesting deeper than ${MAX_DEPTH}`, this.loc(path));
      return null;
    }
    const own = node as Node;
    // A mapping value is located at its key (set by the caller), list elements and the root at themselves.
    const here = pathKey(path);
    if (own.range && !this.positions.has(here)) this.positions.set(here, this.lines.linePos(own.range[0]));
    if (isAlias(node)) return this.convert(node.resolve(this.doc), path, depth + 1);
    if (isScalar(node)) {
      // YAML 1.2 reads `00000429` as 429; PyYAML (what rule authors test with) keeps it a string.
      if (node.type === 'PLAIN' && typeof node.source === 'string' && LEADING_ZERO_INT.test(node.source)) return node.source;
      return this.scalar(node.value, path);
    }
    if (isSeq(node)) return node.items.map((item, i) => this.convert(item, [...path, i], depth + 1));
    if (isMap(node)) {
      const out: Record<string, unknown> = {};
      for (const pair of node.items) {
        const key = keyText(pair.key);
        const keyPath = [...path, key];
        const keyRange = (pair.key as Node | null)?.range;
        if (keyRange) this.positions.set(pathKey(keyPath), this.lines.linePos(keyRange[0]));
        setOwn(out, key, this.convert(pair.value, keyPath, depth + 1));
      }
      return out;
    }
    return null;
  }

  // Integers beyond 2^53 stay exact as decimal strings (sigma-semantics §1.1).
  private scalar(value: unknown, path: KeyPath): unknown {
    if (typeof value !== 'bigint') return value;
    const n = Number(value);
    if (Number.isSafeInteger(n)) return n;
    this.warnings.push({
      code: 'LargeInteger',
      message: `integer ${value.toString()} exceeds 2^53 and is kept as a decimal string`,
      loc: this.loc(path),
    });
    return value.toString();
  }

  private loc(path: KeyPath) {
    const at = this.positions.get(pathKey(path));
    return { file: this.file, doc: this.index, path, ...(at ?? {}) };
  }
}

function keyText(key: unknown): string {
  if (isScalar(key)) {
    const v = key.value;
    if (typeof v === 'string') return v;
    return typeof key.source === 'string' ? key.source : String(v);
  }
  return String(key);
}
