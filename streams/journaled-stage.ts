import type { AlertResult } from '../actors/index.js';
import type { CommittedResult, JournalBuffer } from './batch-processor.js';

/** UNIX seconds of a clock reading in ms (alert-pipeline and risk time, daemon-semantics §0). */
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

/** A result line as a journaled stage reads it: the parsed result (its `result_id` included). */
export type StageInput = AlertResult & { readonly result_id: string };

/**
 * What the journaled stages of the batch order (risk, alert pipeline) share: a config file whose
 * changes are journaled, records pushed into the batch's journal buffer under one kind, and the head
 * of the apply loop (bypassed lines pass, every other line parsed once).
 */
export abstract class JournaledStage<File, Event> {
  constructor(
    protected readonly journal: JournalBuffer,
    private readonly journalKind: string,
  ) {}

  /** The file in force, undefined when none. */
  protected abstract get file(): File | undefined;
  /** Puts a checked file (or none) in force; throws when it does not compile. */
  protected abstract put(file: File | undefined): void;
  protected abstract configEvent(file: File | null): Event;

  get active(): boolean {
    return this.file !== undefined;
  }

  /** Loads a checked file (or none), journaling it when it differs from the one in force. Throws AlertConfigError. */
  load(file: File | undefined): void {
    const before = JSON.stringify(this.file ?? null);
    this.put(file);
    if (JSON.stringify(file ?? null) !== before) this.record(this.configEvent(file ?? null));
  }

  protected record(event: Event): void {
    this.journal.drafts.push({ at: this.journal.at, kind: this.journalKind, key: '', event });
  }

  /**
   * The apply loop's head: `each` sees every line not marked `bypass` with its parsed result and
   * pushes what goes on into `out`; bypassed lines go on as they are. Returns the batch time (UNIX s).
   */
  protected forEachResult(lines: readonly CommittedResult[], out: CommittedResult[], each: (line: CommittedResult, r: StageInput, now: number) => void): number {
    const now = unixSeconds(this.journal.at);
    for (const line of lines) {
      if (line.bypass === true) out.push(line);
      else each(line, JSON.parse(line.text) as StageInput, now);
    }
    return now;
  }
}
