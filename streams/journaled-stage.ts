import type { AlertResult } from '../actors/index.js';
import type { CommittedResult, JournalBuffer } from './batch-processor.js';
import { resultValue } from './result-value.js';

/** UNIX seconds of a clock reading in ms (alert-pipeline and risk time, daemon-semantics §0). */
export const unixSeconds = (ms: number): number => Math.floor(ms / 1000);

/** A result line as a journaled stage reads it: the parsed result (its `result_id` included). */
export type StageInput = AlertResult & { readonly result_id: string };

/** The pure actor behind a journaled stage: the config file in force and how to put another in force. */
export interface ConfiguredActor<File> {
  readonly configFile: File | undefined;
  /** Puts a checked file (or none) in force; throws AlertConfigError and keeps the old one. */
  load(file: File | undefined): void;
}

/** The journal event of a config change, the same for every journaled stage. */
export interface ConfigEvent<File> {
  readonly t: 'config';
  readonly file: File | null;
}

/**
 * What the journaled stages of the batch order (risk, alert pipeline) share: a config file whose
 * changes are journaled, records pushed into the batch's journal buffer under one kind, and the head
 * of the apply loop (bypassed lines pass, every other line's result read). `Other` are the stage's
 * events besides its config.
 */
export abstract class JournaledStage<File, Other> {
  constructor(
    protected readonly journal: JournalBuffer,
    private readonly journalKind: string,
    private readonly actor: ConfiguredActor<File>,
  ) {}

  get active(): boolean {
    return this.actor.configFile !== undefined;
  }

  /** Loads a checked file (or none), journaling it when it differs from the one in force. Throws AlertConfigError. */
  load(file: File | undefined): void {
    const before = JSON.stringify(this.actor.configFile ?? null);
    this.actor.load(file);
    if (JSON.stringify(file ?? null) !== before) this.record({ t: 'config', file: file ?? null });
  }

  protected record(event: ConfigEvent<File> | Other): void {
    this.journal.drafts.push({ at: this.journal.at, kind: this.journalKind, key: '', event });
  }

  /**
   * The apply loop's head: `each` sees every line not marked `bypass` with its result (parsed once
   * across the stages, `resultValue`) and pushes what goes on into `out`; bypassed lines go on as they
   * are. Returns the batch time (UNIX s).
   */
  protected forEachResult(lines: readonly CommittedResult[], out: CommittedResult[], each: (line: CommittedResult, r: StageInput, now: number) => void): number {
    const now = unixSeconds(this.journal.at);
    for (const line of lines) {
      if (line.bypass === true) out.push(line);
      else each(line, resultValue(line) as StageInput, now);
    }
    return now;
  }
}
