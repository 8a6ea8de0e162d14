import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The interface contract, read from `../shared` beside the project (as CI has it). */
const CONTRACT = readFileSync(fileURLToPath(new URL('../../../shared/spec/interface.md', import.meta.url)), 'utf8');

/** The body of one `## ` section of the contract. */
export function section(title: string): string {
  const start = CONTRACT.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`no section ${title}`);
  const next = CONTRACT.indexOf('\n## ', start + 1);
  return CONTRACT.slice(start, next === -1 ? undefined : next);
}

/** Rows of every markdown table in `text` (header and separator rows dropped), as trimmed cells. */
export function tableRows(text: string): string[][] {
  const rows: string[][] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]?.trim() ?? '';
    if (!line.startsWith('|')) continue;
    const next = lines[i + 1]?.trim() ?? '';
    if (/^\|[\s|:-]+\|$/.test(next) || /^\|[\s|:-]+\|$/.test(line)) continue;
    rows.push(line.slice(1, -1).split('|').map((c) => c.trim()));
  }
  return rows;
}
