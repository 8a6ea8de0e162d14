// Fetched text → value by the source's `format` (daemon-semantics §11.1); failures are `Parse` errors.
import YAML from 'yaml';
import { SourceError } from './source-error.js';
import type { SourceFormat } from './source-spec.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** The fetched bytes as UTF-8 text, or a `Parse` error. */
export function decodeSourceText(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    throw new SourceError('Parse', 'the fetched data is not UTF-8');
  }
}

export function parseSourceText(format: SourceFormat, text: string): unknown {
  try {
    switch (format) {
      case 'json':
        return JSON.parse(text) as unknown;
      case 'yaml':
        return parseYaml(text);
      case 'lines':
        return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
      case 'csv':
        return parseCsv(text);
      default: {
        const never: never = format;
        throw new SourceError('Parse', `unknown format ${String(never)}`);
      }
    }
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError('Parse', `${format}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** One document → its value; several (`---`) → an array of them (interface.md, Format rules). */
function parseYaml(text: string): unknown {
  const docs = YAML.parseAllDocuments(text);
  const values = docs.map((d) => {
    if (d.errors.length > 0) throw new SourceError('Parse', `yaml: ${d.errors[0]?.message ?? 'invalid'}`);
    return d.toJS() as unknown;
  });
  if (values.length === 0) return null;
  return values.length === 1 ? values[0] : values;
}

/** RFC 4180 rows (quoted fields may hold commas, quotes and newlines); the header row names each row's keys. */
function parseCsv(text: string): Record<string, string>[] {
  const rows = csvRows(text).filter((r) => !(r.length === 1 && r[0] === ''));
  const header = rows.shift();
  if (header === undefined) throw new SourceError('Parse', 'csv: no header row');
  return rows.map((row, i) => {
    if (row.length !== header.length) throw new SourceError('Parse', `csv: row ${i + 2} has ${row.length} fields, the header ${header.length}`);
    return Object.fromEntries(header.map((name, j) => [name, row[j] ?? '']));
  });
}

function csvRows(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (quoted) throw new SourceError('Parse', 'csv: unterminated quoted field');
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
