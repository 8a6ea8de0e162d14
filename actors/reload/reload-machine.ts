import { assign, setup } from 'xstate';

/**
 * Hot reload control (daemon-semantics §15.2): a trigger (file change, SIGHUP, API) starts a 500 ms
 * debounce that coalesces a burst; when its deadline passes (a `tick` at or after it) one reload
 * runs. Triggers while it runs mark it pending, and another debounce follows. The deadline is an
 * absolute time in context; the daemon arms a timer for it and sends `tick`.
 */
export const RELOAD_DEBOUNCE_MS = 500;

/** `source`: a dynamic source's value changed (issue 24). */
export type ReloadTrigger = 'file' | 'signal' | 'api' | 'source';

export interface ReloadContext {
  /** When the debounce ends (ms); -1 when not debouncing. */
  readonly deadline: number;
  /** A trigger arrived while a reload was running. */
  readonly pending: boolean;
  /** Reloads started. */
  readonly started: number;
}

export type ReloadEvent =
  | { readonly type: 'trigger'; readonly at: number; readonly source: ReloadTrigger }
  | { readonly type: 'tick'; readonly now: number }
  | { readonly type: 'finished'; readonly at: number; readonly ok: boolean };

export const reloadMachine = setup({
  types: {
    context: {} as ReloadContext,
    events: {} as ReloadEvent,
  },
  guards: {
    deadlinePassed: ({ context, event }) => event.type === 'tick' && event.now >= context.deadline,
    hasPending: ({ context }) => context.pending,
  },
  actions: {
    armDeadline: assign({
      deadline: ({ event }) => (event.type === 'trigger' || event.type === 'finished' ? event.at : 0) + RELOAD_DEBOUNCE_MS,
      pending: false,
    }),
    clearDeadline: assign({ deadline: -1 }),
    markPending: assign({ pending: true }),
    countStart: assign({ started: ({ context }) => context.started + 1 }),
  },
}).createMachine({
  id: 'reload',
  initial: 'idle',
  context: { deadline: -1, pending: false, started: 0 },
  states: {
    idle: {
      on: { trigger: { target: 'debouncing', actions: 'armDeadline' } },
    },
    debouncing: {
      on: {
        tick: { guard: 'deadlinePassed', target: 'running', actions: ['clearDeadline', 'countStart'] },
      },
    },
    running: {
      on: {
        trigger: { actions: 'markPending' },
        finished: [{ guard: 'hasPending', target: 'debouncing', actions: 'armDeadline' }, { target: 'idle' }],
      },
    },
  },
});
