// The Sigma evaluator: compile detection rules once, then evaluate events (pure and synchronous).
export { compileRules, type CompileLayout, type CompileOptions, type CompileResult } from './compile-rules.js';
export type { Witness } from './witness.js';
export { packAutomata, unpackAutomata, type AutomatonRecord, type PackedAutomata } from './automaton-tables.js';
export type { CompiledRule, Engine, EvalContext, Match } from './engine.js';
export type { EventLogsource } from './logsource-router.js';
export { ABSENT, FieldPath, LeafList,   } from './field-path.js';
