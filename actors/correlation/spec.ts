import { assign, setup } from 'xstate';

/**
 * The lifecycle of one correlation group, as a statechart the reducer is property-tested against.
 * Inputs are abstract facts a naive reference computes: whether a hit fell before the window
 * (`late`), whether the condition then held (`met`), whether a tick left the window `empty`.
 * The chart decides the rest: suppression, firing, expiry.
 */
export interface GroupSpecContext {
  readonly suppressMs: number;
  readonly mark: number;
  readonly lastAlert: number;
}

export type GroupSpecEvent =
  | { readonly type: 'hit'; readonly at: number; readonly late: boolean; readonly met: boolean }
  | { readonly type: 'tick'; readonly now: number; readonly empty: boolean }
  | { readonly type: 'evicted' };

export interface GroupSpecInput {
  readonly suppressMs: number;
}

function timeOf(e: GroupSpecEvent): number {
  return e.type === 'hit' ? e.at : e.type === 'tick' ? e.now : -1;
}

function suppressingAt(c: GroupSpecContext, at: number): boolean {
  return c.lastAlert >= 0 && c.suppressMs > 0 && Math.max(c.mark, at) - c.lastAlert < c.suppressMs;
}

const live = {
  hit: [
    { guard: 'isLate' },
    { guard: 'notMet', target: 'accumulating', actions: 'advance' },
    { guard: 'isSuppressed', target: 'suppressed', actions: 'advance' },
    { target: 'fired', actions: ['advance', 'recordAlert'] },
  ],
  tick: [{ guard: 'expires', target: 'expired' }, { actions: 'advance' }],
  evicted: { target: 'evicted' },
} as const;

export const groupLifecycle = setup({
  types: {
    context: {} as GroupSpecContext,
    events: {} as GroupSpecEvent,
    input: {} as GroupSpecInput,
  },
  guards: {
    isLate: ({ event }) => event.type === 'hit' && event.late,
    notMet: ({ event }) => event.type === 'hit' && !event.met,
    isSuppressed: ({ context, event }) => suppressingAt(context, timeOf(event)),
    expires: ({ context, event }) => event.type === 'tick' && event.empty && !suppressingAt(context, event.now),
  },
  actions: {
    advance: assign({ mark: ({ context, event }) => Math.max(context.mark, timeOf(event)) }),
    recordAlert: assign({ lastAlert: ({ context }) => context.mark }),
  },
}).createMachine({
  id: 'correlationGroup',
  initial: 'idle',
  context: ({ input }) => ({ suppressMs: input.suppressMs, mark: -1, lastAlert: -1 }),
  states: {
    idle: { on: live },
    accumulating: { on: live },
    fired: { on: live },
    suppressed: { on: live },
    expired: { type: 'final' },
    evicted: { type: 'final' },
  },
});
