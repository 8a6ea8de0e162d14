import { assign, setup } from 'xstate';

/**
 * Readiness of the daemon (`/readyz`): `starting` until both the rules are loaded and the state has
 * been replayed, then `ready`. A failed reload makes it `not_ready` (the previous rules keep serving)
 * until the next successful one. A failed initial load ends in `failed` (the daemon exits 2).
 */
export interface ReadinessContext {
  readonly rulesLoaded: boolean;
  readonly stateRecovered: boolean;
  /** Time of the last state change (ms), for logs and status. */
  readonly since: number;
  /** Why the last load or reload failed, while not ready. */
  readonly lastError: string | undefined;
}

export type ReadinessEvent =
  | { readonly type: 'rules_loaded'; readonly at: number }
  | { readonly type: 'state_recovered'; readonly at: number }
  | { readonly type: 'load_failed'; readonly at: number; readonly error: string }
  | { readonly type: 'reload_succeeded'; readonly at: number }
  | { readonly type: 'reload_failed'; readonly at: number; readonly error: string };

export interface ReadinessInput {
  readonly at: number;
}

export const readinessMachine = setup({
  types: {
    context: {} as ReadinessContext,
    events: {} as ReadinessEvent,
    input: {} as ReadinessInput,
  },
  guards: {
    recoveredAlready: ({ context }) => context.stateRecovered,
    loadedAlready: ({ context }) => context.rulesLoaded,
  },
  actions: {
    markLoaded: assign({ rulesLoaded: true }),
    markRecovered: assign({ stateRecovered: true }),
    stamp: assign({ since: ({ event }) => event.at }),
    clearError: assign({ lastError: undefined }),
    recordError: assign({
      lastError: ({ event }) => (event.type === 'reload_failed' || event.type === 'load_failed' ? event.error : undefined),
    }),
  },
}).createMachine({
  id: 'readiness',
  initial: 'starting',
  context: ({ input }) => ({ rulesLoaded: false, stateRecovered: false, since: input.at, lastError: undefined }),
  states: {
    starting: {
      on: {
        rules_loaded: [
          { guard: 'recoveredAlready', target: 'ready', actions: ['markLoaded', 'stamp'] },
          { actions: 'markLoaded' },
        ],
        state_recovered: [
          { guard: 'loadedAlready', target: 'ready', actions: ['markRecovered', 'stamp'] },
          { actions: 'markRecovered' },
        ],
        load_failed: { target: 'failed', actions: ['recordError', 'stamp'] },
      },
    },
    ready: {
      on: {
        reload_failed: { target: 'not_ready', actions: ['recordError', 'stamp'] },
        reload_succeeded: { actions: 'clearError' },
      },
    },
    not_ready: {
      on: {
        reload_succeeded: { target: 'ready', actions: ['clearError', 'stamp'] },
        reload_failed: { actions: 'recordError' },
      },
    },
    failed: { type: 'final' },
  },
});

export type ReadinessState = 'starting' | 'ready' | 'not_ready' | 'failed';
