import type { Counter, Histogram } from 'prom-client';
import type { Dispatcher } from 'undici';
import { bindZeroed, WebhookEntrySchema } from '../../protocol/index.js';
import type { StateStore } from '../../state/index.js';
import type { CompiledTemplate, ResultKind } from '../result-template.js';
import { resultKind } from '../result-template.js';
import type { ScopeFilter } from '../result-scope.js';
import { PermanentDeliveryError } from '../sinks/sink-worker.js';
import type { SinkTarget } from '../sinks/sink-worker.js';
import { undici } from '../egress/undici.js';
import { sleep } from '../stage-context.js';
import type { StageContext } from '../stage-context.js';
import { RateLimiter } from './rate-limiter.js';
import { signatureHeaders } from './signing.js';
import type { Signer } from './signing.js';

export const kind = 'webhook';

/** One entry of a webhook file (§12.1); `cli/` resolves it into a ResolvedWebhook. */
export const configSchema = WebhookEntrySchema;

/** A webhook entry resolved at load: templates compiled, secrets read, TLS material in its agent. */
export interface ResolvedWebhook {
  readonly id: string;
  readonly kind: ResultKind;
  readonly url: CompiledTemplate;
  readonly method: string;
  readonly headers: readonly (readonly [string, CompiledTemplate])[];
  readonly body: CompiledTemplate | undefined;
  readonly timeoutMs: number;
  readonly rateLimit: { readonly requests: number; readonly perMs: number } | undefined;
  readonly scope: ScopeFilter;
  readonly signer: Signer | undefined;
  /** The egress-filtered agent (per webhook when it has its own TLS material). */
  readonly dispatcher: Dispatcher;
}

const RESPONSE_DRAIN_BYTES = 64 * 1024;
const RETRY_AFTER_CAP_S = 60;

/** The outbox sink name (watermark key) of a webhook. */
export function webhookSinkName(id: string): string {
  return `webhook:${id}`;
}

/** Where a result's first-attempt time is kept, so a retry after a restart signs the same bytes. */
function stampSource(id: string): string {
  return `webhook-stamp:${id}`;
}

interface Stamp {
  readonly result_id: string;
  readonly timestamp: number;
}

function isStamp(v: unknown): v is Stamp {
  return typeof v === 'object' && v !== null && typeof (v as Stamp).result_id === 'string' && typeof (v as Stamp).timestamp === 'number';
}

function retryAfterSeconds(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text !== undefined && /^\s*\d+\s*$/.test(text) ? Number(text) : undefined;
}

/**
 * One webhook as a sink (daemon-semantics §12.2): each outbox entry is one result; a result of the
 * webhook's kind inside its scope becomes one signed request. The message id is `msg_<result_id>`
 * and the timestamp is the first attempt's, stored in the state before that attempt, so every retry
 * (also after a crash) carries byte-identical signing headers. 2xx is delivered; 429/5xx and
 * transport errors are retried by the sink worker (after a numeric `Retry-After`, capped at 60 s);
 * any other status is permanent and goes to the DLQ without retries.
 */
export function create(webhook: ResolvedWebhook, ctx: StageContext, store: StateStore): SinkTarget {
  const { id } = webhook;
  const labels = { webhook_id: id };
  const success = bindZeroed(ctx.metrics.svc_webhook_requests_total, { ...labels, outcome: 'success' }) as Counter.Internal;
  const permanent = bindZeroed(ctx.metrics.svc_webhook_requests_total, { ...labels, outcome: 'permanent_failure' }) as Counter.Internal;
  const waited = bindZeroed(ctx.metrics.svc_webhook_requests_total, { ...labels, outcome: 'rate_limited_wait' }) as Counter.Internal;
  const duration = bindZeroed(ctx.metrics.svc_webhook_request_duration_seconds, labels) as Histogram.Internal<'webhook_id'>;
  const limiter = webhook.rateLimit === undefined ? undefined : new RateLimiter(webhook.rateLimit.requests, webhook.rateLimit.perMs, ctx.clock);
  const log = ctx.log.child({ component: 'sink', sink: webhookSinkName(id) });
  let stamp: Stamp | undefined;
  let batch = '';
  let sent = 0;

  const stampFor = async (resultId: string): Promise<number> => {
    if (stamp?.result_id !== resultId) {
      const stored = store.inputPosition(stampSource(id));
      if (isStamp(stored) && stored.result_id === resultId) stamp = stored;
      else {
        stamp = { result_id: resultId, timestamp: Math.floor(ctx.clock.now() / 1000) };
        await store.commitBatch({ records: [], input: { count: 0, source: stampSource(id), position: stamp } });
      }
    }
    return stamp.timestamp;
  };

  const send = async (result: Record<string, unknown>, resultId: string): Promise<void> => {
    // Waits ignore the daemon's stop signal: cutting one short would count as a failed attempt and could
    // dead-letter a result that should stay in the outbox; the drain deadline bounds shutdown instead.
    if (limiter !== undefined && (await limiter.take())) waited.inc();
    const url = webhook.url.render(result);
    const headers: Record<string, string> = {};
    for (const [name, template] of webhook.headers) headers[name] = template.render(result);
    const body = webhook.body?.render(result);
    if (webhook.signer !== undefined) {
      const timestamp = await stampFor(resultId);
      Object.assign(headers, signatureHeaders(webhook.signer, { id: `msg_${resultId}`, timestamp, body: body ?? '' }));
    }
    const started = performance.now();
    let response: Dispatcher.ResponseData;
    try {
      response = await undici().request(url, {
        dispatcher: webhook.dispatcher,
        method: webhook.method as Dispatcher.HttpMethod,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(webhook.timeoutMs),
      });
    } catch (error) {
      const reason = error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ''}` : String(error);
      // undici rejects a bad header name or value before sending: no retry can fix that.
      if (error instanceof Error && 'code' in error && error.code === 'UND_ERR_INVALID_ARG') throw new PermanentDeliveryError(`webhook ${id}: ${reason}`);
      throw new Error(`webhook ${id}: ${reason}`);
    }
    const status = response.statusCode;
    await response.body.dump({ limit: RESPONSE_DRAIN_BYTES }).catch(() => undefined);
    const seconds = (performance.now() - started) / 1000;
    if (status >= 200 && status < 300) {
      success.inc();
      duration.observe(seconds);
      return;
    }
    if (status === 429 || status >= 500) {
      const after = retryAfterSeconds(response.headers['retry-after']);
      if (after !== undefined) await sleep(ctx.clock, Math.min(after, RETRY_AFTER_CAP_S) * 1000);
      throw new Error(`webhook ${id}: HTTP ${status}`);
    }
    permanent.inc();
    duration.observe(seconds);
    throw new PermanentDeliveryError(`webhook ${id}: HTTP ${status}`);
  };

  return {
    name: webhookSinkName(id),
    label: id,
    onFull: 'drop',
    async start() {
      log.debug('webhook sink ready');
    },
    async write(text) {
      // The sink worker retries a failed batch whole: the results of it already answered 2xx are not sent again.
      if (text !== batch) {
        batch = text;
        sent = 0;
      }
      const lines = text.split('\n');
      for (; sent < lines.length; sent++) {
        const line = lines[sent] as string;
        if (line === '') continue;
        const result = JSON.parse(line) as Record<string, unknown>;
        if (resultKind(result) !== webhook.kind || !webhook.scope(result)) continue;
        await send(result, String(result['result_id']));
      }
    },
    async close() {
      // Called after the drain: a request still in flight is undelivered and stays in the outbox.
      await webhook.dispatcher.destroy();
    },
  };
}
