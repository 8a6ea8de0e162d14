// YAML 1.1 wrote booleans as yes/no/on/off; under the 1.2 core schema they arrive as strings, so places
// that expect a boolean accept them (sigma-semantics §1.1).

const WORDS: Readonly<Record<string, boolean>> = { true: true, yes: true, on: true, false: false, no: false, off: false };

/** The boolean `v` stands for, or undefined when it is not a boolean word. */
export function parseBooleanish(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v !== 'string') return undefined;
  const key = v.toLowerCase();
  return Object.hasOwn(WORDS, key) ? WORDS[key] : undefined;
}
