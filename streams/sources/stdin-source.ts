import { Observable } from 'rxjs';
import Type from 'typebox';
import { LineSplitter } from '../../protocol/index.js';
import type { LineFrame, RejectedLine } from '../../protocol/index.js';
import type { InputUnit } from '../input-unit.js';
import type { StageContext } from '../stage-context.js';
import type { IngestSource } from './ingest-source.js';

export const kind = 'stdin';

/** Lines per unit: large enough to batch well, small enough to bound memory per read. */
export const configSchema = Type.Object({ chunk_lines: Type.Integer({ minimum: 1, default: 256 }) });
export type StdinConfig = Type.Static<typeof configSchema>;

export interface StdinDeps {
  readonly input: AsyncIterable<string | Uint8Array>;
  /** Names the source in logs (default `stdin`; a unix socket's connections reuse this framing). */
  readonly source?: string;
}

/**
 * Newline-framed events of `input` as units of at most `chunk_lines` lines; the next read waits until
 * the last unit was admitted (a full queue holds the reader). Completes at EOF: the daemon then drains
 * and exits 0. Oversized and non-UTF-8 lines are counted as parse errors with the next unit.
 * Unsubscribing stops the reading. Best effort: nothing here is acknowledged to a producer.
 */
export function create(config: StdinConfig, ctx: StageContext, deps: StdinDeps): IngestSource {
  const log = ctx.log.child({ component: 'source', source: deps.source ?? kind });
  return new Observable<InputUnit>((subscriber) => {
    let stopped = false;
    const splitter = new LineSplitter();
    let lines: string[] = [];
    let rejected: RejectedLine[] = [];
    const take = async (frames: readonly LineFrame[], flush: boolean): Promise<void> => {
      for (const f of frames) {
        if (f.ok) lines.push(f.line);
        else {
          rejected.push(f);
          log.warn({ lineNo: f.lineNo, reason: f.reason }, 'input line dropped');
        }
      }
      if (lines.length >= config.chunk_lines || (flush && (lines.length > 0 || rejected.length > 0))) {
        const unit = { lines, rejected };
        lines = [];
        rejected = [];
        await new Promise<void>((admitted) => subscriber.next({ ...unit, admitted }));
      }
    };
    (async () => {
      for await (const chunk of deps.input) {
        if (stopped) return;
        // A read that ends mid-stream flushes what it framed so a slow producer's events still flow.
        await take(splitter.push(chunk), true);
      }
      await take(splitter.end(), true);
      log.info('input exhausted');
      subscriber.complete();
    })().catch((error: unknown) => subscriber.error(error));
    return () => {
      stopped = true;
    };
  });
}
