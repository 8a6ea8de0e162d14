// `${source.<id>[.path]}` in a pipeline's `vars` and `include:` items (daemon-semantics §11.3): the
// resolved values come in as data, so expansion is pure and main and detection workers expand alike.

/** Resolved dynamic-source values a pipeline may reference. */
export interface SourceValues {
  /** Source id → its resolved JSON value (sources that never resolved are absent). */
  readonly values: Readonly<Record<string, unknown>>;
  /** Sources whose value may not be spliced by `include:` (remote ones without `--allow-remote-include`). */
  readonly noInclude: readonly string[];
}

const TOKEN = /\$\{source\.([A-Za-z0-9_]+)((?:\.[^.}]+)*)\}/g;
const WHOLE = /^\$\{source\.([A-Za-z0-9_]+)((?:\.[^.}]+)*)\}$/;

/** The value at `id` and dot `path` (object keys; numeric segments index arrays), or `missing`. */
const missing: unique symbol = Symbol('missing');
function lookup(values: SourceValues['values'], id: string, path: string): unknown {
  if (!Object.hasOwn(values, id)) return missing;
  let at: unknown = values[id];
  for (const segment of path.split('.').slice(1)) {
    if (Array.isArray(at) && /^\d+$/.test(segment)) at = Number(segment) < at.length ? at[Number(segment)] : missing;
    else if (typeof at === 'object' && at !== null && !Array.isArray(at) && Object.hasOwn(at, segment)) at = (at as Record<string, unknown>)[segment];
    else return missing;
  }
  return at;
}

/** Strings raw, null empty, numbers and booleans as written, objects and arrays as compact JSON. */
export function stringifySourceValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/**
 * One var value: exactly one token expands to one entry per array element (null: none; a scalar or
 * object: one); tokens inside a longer string are replaced by the stringified value. Unresolvable
 * tokens stay as written.
 */
export function expandSourceString(text: string, values: SourceValues['values']): string[] {
  if (!text.includes('${source.')) return [text];
  const whole = WHOLE.exec(text);
  if (whole !== null) {
    const value = lookup(values, whole[1] ?? '', whole[2] ?? '');
    if (value === missing) return [text];
    if (value === null) return [];
    return Array.isArray(value) ? value.map(stringifySourceValue) : [stringifySourceValue(value)];
  }
  return [
    text.replace(TOKEN, (token, id: string, path: string) => {
      const value = lookup(values, id, path);
      return value === missing ? token : stringifySourceValue(value);
    }),
  ];
}

/** `vars` with every source reference expanded; a var whose value was a single string stays a string when it expands to one. */
export function expandSourceVars(vars: unknown, values: SourceValues['values']): unknown {
  if (typeof vars !== 'object' || vars === null || Array.isArray(vars)) return vars;
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(vars)) {
    if (typeof value === 'string') {
      const expanded = expandSourceString(value, values);
      out[name] = WHOLE.test(value) || expanded.length !== 1 ? expanded : expanded[0];
    } else if (Array.isArray(value)) {
      out[name] = value.flatMap((v: unknown) => (typeof v === 'string' ? expandSourceString(v, values) : [v]));
    } else {
      out[name] = value;
    }
  }
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Transformation items with `include: ${source.<id>}` replaced by the source's array of items.
 * Returns the problems found (each with the item's index), or the spliced list.
 */
export function spliceSourceIncludes(
  items: unknown,
  sources: SourceValues,
): { readonly items: unknown; readonly problems: readonly { readonly index: number; readonly message: string }[] } {
  if (!Array.isArray(items)) return { items, problems: [] };
  const problems: { index: number; message: string }[] = [];
  const out: unknown[] = [];
  items.forEach((item: unknown, index) => {
    if (!isRecord(item) || !Object.hasOwn(item, 'include')) return void out.push(item);
    const fail = (message: string): void => void problems.push({ index, message });
    const template = item['include'];
    const whole = typeof template === 'string' ? WHOLE.exec(template) : null;
    if (whole === null || (whole[2] ?? '') !== '' || Object.keys(item).length !== 1) {
      return fail("an include item is exactly `include: ${source.<id>}`");
    }
    const id = whole[1] ?? '';
    if (sources.noInclude.includes(id)) return fail(`source '${id}' is remote (http or nats): including it needs --allow-remote-include`);
    if (!Object.hasOwn(sources.values, id)) return fail(`source '${id}' is unknown or did not resolve`);
    const value = sources.values[id];
    if (!Array.isArray(value)) return fail(`source '${id}' must resolve to an array of transformation items`);
    if (value.some((v: unknown) => !isRecord(v))) return fail(`source '${id}' holds an item that is not a mapping`);
    if (value.some((v: unknown) => isRecord(v) && Object.hasOwn(v, 'include'))) return fail(`source '${id}' holds an include item (includes do not nest)`);
    out.push(...(value as unknown[]));
  });
  return { items: out, problems };
}
