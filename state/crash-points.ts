/**
 * Named points where a crash is most informative to test. The daemon maps `SVC_CRASH_AT` to a hook
 * that SIGKILLs the process at the named point; tests pass a hook that throws.
 */
export type CrashPoint =
  | 'after-eval'
  | 'after-commit'
  | 'after-sink-write'
  | 'mid-snapshot'
  | 'after-tick-commit'
  // An audited control call: its change applied in memory, before / after the one transaction holding it and its audit record.
  | 'before-audit-commit'
  | 'after-audit-commit';

export type CrashHook = (point: CrashPoint) => void;

export const noCrash: CrashHook = () => undefined;
