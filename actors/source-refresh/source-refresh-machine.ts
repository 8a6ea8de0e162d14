import { assign, setup } from 'xstate';

/**
 * One dynamic source's refresh (daemon-semantics §11.4, issue 24): `idle` until the first trigger,
 * `resolving` while a fetch runs (`queued` when another trigger arrived meanwhile: it runs once the
 * current one ends, never in parallel), then `ready` or `failed`. An interval source re-resolves
 * when its deadline passes; after failures any source with a timer backs off exponentially with
 * jitter instead of retrying at its interval. Deadlines are absolute times in context: the host
 * arms a timer for `deadline` and sends `tick`. Jitter comes in with the failure (actors draw no
 * random numbers).
 */

/** Refresh policies of §11.1; `interval` carries its period. */
export type RefreshPolicy =
  | { readonly kind: 'once' | 'watch' | 'push' | 'on_demand' }
  | { readonly kind: 'interval'; readonly everyMs: number };

/** First retry delay after a failure (before jitter); doubles per consecutive failure. */
export const BACKOFF_BASE_MS = 1_000;
/** Longest retry delay of a failing source (or its interval, when longer). */
export const BACKOFF_MAX_MS = 300_000;

export interface SourceRefreshInput {
  readonly policy: RefreshPolicy;
}

export interface SourceRefreshContext {
  readonly policy: RefreshPolicy;
  /** When the next timed resolve is due (ms); -1 when none is armed. */
  readonly deadline: number;
  /** Consecutive failures. */
  readonly failures: number;
  /** Resolves started. */
  readonly started: number;
}

export type SourceRefreshEvent =
  | { readonly type: 'trigger'; readonly at: number }
  | { readonly type: 'tick'; readonly now: number }
  | { readonly type: 'resolved'; readonly at: number }
  /** `jitter` in [0, 1): where in the backoff window the retry lands. */
  | { readonly type: 'resolve_failed'; readonly at: number; readonly jitter: number }
  /** A push message replaced the value (push sources). */
  | { readonly type: 'pushed'; readonly at: number };

/** The delay before the retry after `failures` consecutive failures: equal jitter over an exponential window. */
function decideBackoffMs(policy: RefreshPolicy, failures: number, jitter: number): number {
  const base = policy.kind === 'interval' ? Math.max(policy.everyMs, BACKOFF_BASE_MS) : BACKOFF_BASE_MS;
  const cap = Math.max(BACKOFF_MAX_MS, policy.kind === 'interval' ? policy.everyMs : 0);
  const window = Math.min(cap, base * 2 ** Math.min(failures - 1, 30));
  return Math.round(window / 2 + (window / 2) * jitter);
}

/** Policies that retry a failed resolve on a timer (the others wait for their next trigger). */
const retries = (policy: RefreshPolicy): boolean => policy.kind === 'interval';

export const sourceRefreshMachine = setup({
  types: {
    context: {} as SourceRefreshContext,
    events: {} as SourceRefreshEvent,
    input: {} as SourceRefreshInput,
  },
  guards: {
    deadlinePassed: ({ context, event }) => event.type === 'tick' && context.deadline >= 0 && event.now >= context.deadline,
    retries: ({ context }) => retries(context.policy),
  },
  actions: {
    countStart: assign({ started: ({ context }) => context.started + 1, deadline: -1 }),
    armInterval: assign({
      failures: 0,
      deadline: ({ context, event }) => (context.policy.kind === 'interval' && 'at' in event ? event.at + context.policy.everyMs : -1),
    }),
    armBackoff: assign(({ context, event }) => {
      const failures = context.failures + 1;
      const delay = event.type === 'resolve_failed' ? decideBackoffMs(context.policy, failures, event.jitter) : 0;
      return { failures, deadline: event.type === 'resolve_failed' ? event.at + delay : -1 };
    }),
    countFailure: assign({ failures: ({ context }) => context.failures + 1, deadline: -1 }),
  },
}).createMachine({
  id: 'source_refresh',
  initial: 'idle',
  context: ({ input }) => ({ policy: input.policy, deadline: -1, failures: 0, started: 0 }),
  states: {
    idle: {
      on: { trigger: { target: 'resolving', actions: 'countStart' }, pushed: { target: 'ready' } },
    },
    resolving: {
      initial: 'running',
      states: {
        running: {
          on: {
            trigger: { target: 'queued' },
            resolved: { target: '#source_refresh.ready', actions: 'armInterval' },
            resolve_failed: [
              { guard: 'retries', target: '#source_refresh.failed', actions: 'armBackoff' },
              { target: '#source_refresh.failed', actions: 'countFailure' },
            ],
          },
        },
        // "Resolve already pending": the API answers 429 here; the queued resolve starts when this one ends.
        queued: {
          on: {
            resolved: { target: '#source_refresh.resolving', reenter: true, actions: ['armInterval', 'countStart'] },
            resolve_failed: { target: '#source_refresh.resolving', reenter: true, actions: ['countFailure', 'countStart'] },
          },
        },
      },
    },
    ready: {
      on: {
        trigger: { target: 'resolving', actions: 'countStart' },
        tick: { guard: 'deadlinePassed', target: 'resolving', actions: 'countStart' },
        pushed: { actions: 'armInterval' },
      },
    },
    failed: {
      on: {
        trigger: { target: 'resolving', actions: 'countStart' },
        tick: { guard: 'deadlinePassed', target: 'resolving', actions: 'countStart' },
        pushed: { target: 'ready', actions: 'armInterval' },
      },
    },
  },
});
