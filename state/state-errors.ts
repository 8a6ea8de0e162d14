export type StateCorruptionCode = 'journal_record_unreadable' | 'snapshot_unreadable' | 'outbox_entry_unreadable';

/** Stored state that cannot be read; `seq` names the record (journal, snapshot or outbox sequence). */
export class StateCorruptionError extends Error {
  override readonly name = 'StateCorruptionError';
  constructor(
    readonly code: StateCorruptionCode,
    readonly seq: number,
    message: string,
  ) {
    super(message);
  }
}
