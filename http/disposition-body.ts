/**
 * A disposition POST body is one JSON object, a JSON array of them, or NDJSON. Returns the
 * records (unchecked) or undefined when the whole body cannot be read.
 */
export function parseDispositionBody(body: Uint8Array): readonly unknown[] | undefined {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return undefined;
  }
  const whole = parseJson(text);
  if (whole.ok) return Array.isArray(whole.value) ? whole.value : [whole.value];
  const records: unknown[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const one = parseJson(line);
    if (!one.ok) return undefined;
    records.push(one.value);
  }
  return records.length > 0 ? records : undefined;
}

function parseJson(text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * Where a body `parseDispositionBody` refused fails, for the 400 answer: the first NDJSON line
 * (1-based) that is not JSON and the parser's message, which names the position in that line.
 */
export function dispositionBodyError(body: Uint8Array): { readonly line?: number; readonly detail: string } {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    return { detail: 'the body is not UTF-8' };
  }
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    try {
      JSON.parse(line);
    } catch (error) {
      return { line: i + 1, detail: error instanceof Error ? error.message : String(error) };
    }
  }
  return { detail: 'the body holds no record' };
}
