/**
 * Named points where a crash is most informative to test. The daemon maps `SVC_CRASH_AT` to a hook
 * that SIGKILLs the process at the named point; tests pass a hook that throws.
 */
export type CrashPoint = 'after-eval' | 'after-commit' | 'after-sink-write' | 'mid-snapshot' | 'after-tick-commit';

export type CrashHook = (point: CrashPoint) => void;

export const noCrash: CrashHook = () => undefined;
