import type { CompiledCorrelation, KeyPart } from '../../sigma/index.js';
import { decodeGroupKey, encodeGroupKey } from '../../sigma/index.js';

/** How journal keys name a correlation: its id, else its name, else its definition hash. */
export function correlationName(def: CompiledCorrelation): string {
  return def.rule.id ?? def.rule.name ?? def.hash;
}

/** The journal's definition group of a correlation: its state lives and dies with its hash. */
export function definitionGroupOf(def: CompiledCorrelation): string {
  return `corr:${correlationName(def)}`;
}

/** The journal actor key of a group: `corr:<id | name | hash>:<encoded group key>`. */
export function actorKey(def: CompiledCorrelation, key: readonly KeyPart[]): string {
  return `${definitionGroupOf(def)}:${encodeGroupKey(key)}`;
}

/** The correlation and group an actor key names, among `defs`; undefined when none fits. */
export function parseActorKey(
  defs: readonly CompiledCorrelation[],
  key: string,
): { readonly def: CompiledCorrelation; readonly parts: KeyPart[] } | undefined {
  for (const def of defs) {
    const prefix = `${definitionGroupOf(def)}:`;
    const parts = key.startsWith(prefix) ? decodeGroupKey(key.slice(prefix.length)) : undefined;
    if (parts !== undefined && parts.length === def.groupBy.length) return { def, parts };
  }
  return undefined;
}

/** `DefinitionHashes` for the journal: definition group → compiled definition hash. */
export function definitionHashes(defs: readonly CompiledCorrelation[]): Record<string, string> {
  return Object.fromEntries(defs.map((d) => [definitionGroupOf(d), d.hash]));
}
