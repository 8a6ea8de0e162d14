import type { CorrelationGroupSnapshot, CorrelationSummary } from '../../protocol/correlation-result.js';
import type {
  DispositionSummary,
  DynamicSourceInfo,
  IngestSummary,
  Silence,
  StatusRecord,
} from '../../protocol/api-records.js';
import type { CorrelationStateQuery, PageQuery, SilenceCreateBody } from '../../protocol/api-requests.js';
import type { SchemaSuggestions } from '../../protocol/observer-records.js';
import { lineTexts } from '../../protocol/decode/index.js';
import type { RejectedLine, UnitLines } from '../../protocol/decode/index.js';
import type {
  DaemonFacade,
  DynamicSources,
  Dispositions,
  EventIngest,
  FieldObserver,
  LiveSink,
  LiveStream,
  SchemaObserver,
  SilenceCreateResult,
  SilenceStore,
  TailRequest,
  TapRequest,
} from '../../http/index.js';

/** Which optional surfaces a fake daemon offers (all off by default, like the real daemon). */
export interface FakeFeatures {
  readonly httpInput?: boolean;
  readonly dispositions?: boolean;
  readonly observeFields?: boolean;
  readonly observeSchemas?: boolean;
  readonly discoverSchemas?: boolean;
  readonly tap?: boolean;
  readonly tail?: boolean;
  readonly sources?: readonly DynamicSourceInfo[];
}

/** A live stream that records its sessions so tests can push lines and end them. */
export class FakeLiveStream<R> implements LiveStream<R> {
  readonly sessions: { readonly request: R; readonly sink: LiveSink; closed: boolean }[] = [];
  constructor(
    readonly maxSessions: number,
    readonly maxDurationMs?: number,
    readonly bufferEvents = 64,
  ) {}
  open(request: R, sink: LiveSink): { ok: true; close(): void } | { ok: false; reason: 'capacity' } {
    const running = this.sessions.filter((s) => !s.closed && !s.sink.closed).length;
    if (running >= this.maxSessions) return { ok: false, reason: 'capacity' };
    const session = { request, sink, closed: false };
    this.sessions.push(session);
    return { ok: true, close: () => (session.closed = true) };
  }
}

/** An in-memory DaemonFacade with observable state, for route and adapter tests. */
export class FakeDaemonFacade implements DaemonFacade {
  ready = true;
  /** Why the last reload failed, while not ready after one. */
  reloadError: string | undefined;
  stateError: string | undefined;
  reloadPending = false;
  reloads = 0;
  statusRecord: StatusRecord = {
    status: 'running',
    detection_rules: 3,
    correlation_rules: 1,
    correlation_state_entries: 0,
    events_processed: 0,
    detection_matches: 0,
    correlation_matches: 0,
    uptime_seconds: 1.5,
  };
  correlationList: CorrelationSummary[] = [];
  groupList: CorrelationGroupSnapshot[] = [];
  readonly ingested: { readonly lines: readonly string[]; readonly rejected: readonly RejectedLine[]; readonly key?: string }[] = [];
  readonly silenceMap = new Map<string, Silence>();
  maxSilences = 1000;
  private nextSilence = 1;

  readonly ingest?: EventIngest;
  readonly sources?: DynamicSources;
  readonly dispositions?: Dispositions;
  readonly fieldObserver?: FieldObserver;
  readonly schemaObserver?: SchemaObserver;
  readonly schemaDiscovery?: { suggestions(): SchemaSuggestions };
  readonly tap?: FakeLiveStream<TapRequest>;
  readonly tail?: FakeLiveStream<TailRequest>;
  readonly resolving = new Set<string>();
  readonly invalidated: string[] = [];

  constructor(features: FakeFeatures = {}) {
    if (features.httpInput === true) this.ingest = { ingest: (batch, key) => this.recordIngest(batch, key) };
    if (features.sources !== undefined) this.sources = this.fakeSources(features.sources);
    if (features.dispositions === true) this.dispositions = fakeDispositions();
    if (features.observeFields === true) this.fieldObserver = fakeFieldObserver();
    if (features.observeSchemas === true || features.discoverSchemas === true) {
      this.schemaObserver = {
        report: () => ({ summary: { events_observed: 0, classified: 0, unknown: 0, ambiguous: 0, uptime_seconds: 0 }, by_schema: [], unknown_shapes: [], routing_pruning: [] }),
        reset: () => ({ status: 'reset', previous_classified: 0, previous_unknown: 0 }),
      };
    }
    if (features.discoverSchemas === true) {
      this.schemaDiscovery = {
        suggestions: () => ({ summary: { events_mined: 0, shapes: 0, clusters: 0, candidates: 0 }, candidates: [], signatures_yaml: 'schemas: []\n' }),
      };
    }
    if (features.tap === true) this.tap = new FakeLiveStream<TapRequest>(2, 300_000);
    if (features.tail === true) this.tail = new FakeLiveStream<TailRequest>(2);
  }

  readiness(): { ready: boolean; reloadError?: string; stateError?: string } {
    if (this.stateError !== undefined) return { ready: false, stateError: this.stateError };
    return this.ready || this.reloadError === undefined ? { ready: this.ready } : { ready: false, reloadError: this.reloadError };
  }
  status(): StatusRecord {
    return this.statusRecord;
  }
  rules() {
    return {
      detection_rules: this.statusRecord.detection_rules,
      correlation_rules: this.statusRecord.correlation_rules,
      rules_path: '/rules',
    };
  }
  correlations(): readonly CorrelationSummary[] {
    return this.correlationList;
  }
  correlationState(filter: CorrelationStateQuery) {
    const correlations = this.correlationList.filter(
      (c) => filter.id === undefined || c.id === filter.id || c.name === filter.id || c.title === filter.id,
    );
    const indexes = new Set(correlations.map((c) => c.index));
    const groups = this.groupList.filter(
      (g) => indexes.has(g.correlation_index) && (filter.group === undefined || g.group_key_display.includes(filter.group)),
    );
    return { correlations, groups };
  }
  triggerReload(): 'triggered' | 'already_pending' {
    if (this.reloadPending) return 'already_pending';
    this.reloads += 1;
    return 'triggered';
  }
  metrics() {
    return Promise.resolve({ contentType: 'text/plain; version=0.0.4; charset=utf-8', text: 'svc_events_processed_total 0\n' });
  }
  readonly silences: SilenceStore = {
    list: () => [...this.silenceMap.values()],
    create: (body: SilenceCreateBody): SilenceCreateResult => {
      if (body.matchers.length === 0) return { ok: false, reason: 'invalid', detail: 'silence.matchers: must be a non-empty list' };
      for (const m of body.matchers) {
        if (m.op !== '=~' && m.op !== '!~') continue;
        try {
          new RegExp(m.value);
        } catch (error) {
          return { ok: false, reason: 'invalid_regex', detail: String(error) };
        }
      }
      if (this.silenceMap.size >= this.maxSilences) return { ok: false, reason: 'limit_reached' };
      const id = `s${this.nextSilence++}`;
      this.silenceMap.set(id, { id, ...body, matchers: body.matchers.map((m) => ({ ...m, op: m.op ?? '=' })), origin: 'api', state: 'active' });
      return { ok: true, id };
    },
    remove: (id: string) => this.silenceMap.delete(id),
  };

  private recordIngest(batch: { readonly lines: UnitLines; readonly rejected: readonly RejectedLine[] }, key?: string): Promise<IngestSummary> {
    const lines = lineTexts(batch.lines);
    this.ingested.push({ lines, rejected: batch.rejected, ...(key !== undefined ? { key } : {}) });
    let parseErrors = batch.rejected.length;
    for (const line of lines) {
      try {
        JSON.parse(line);
      } catch {
        parseErrors += 1;
      }
    }
    return Promise.resolve({ accepted: batch.lines.length, parse_errors: parseErrors });
  }

  private fakeSources(list: readonly DynamicSourceInfo[]): DynamicSources {
    return {
      list: () => list,
      resolve: (id) => {
        const key = id ?? '*';
        if (this.resolving.has(key)) return 'already_pending';
        this.resolving.add(key);
        return 'triggered';
      },
      invalidate: (id) => {
        this.invalidated.push(id);
      },
    };
  }
}

function fakeDispositions(): Dispositions {
  return {
    ratios: () => ({ window_seconds: 2_592_000, numerator: 'fp_only', min_sample: 5, rules: [] }),
    ingest: (records): Promise<DispositionSummary> => {
      const accepted = records.filter((r) => typeof r === 'object' && r !== null && !Array.isArray(r)).length;
      return Promise.resolve({ accepted, duplicate: 0, rejected: records.length - accepted });
    },
  };
}

function fakeFieldObserver(): FieldObserver {
  const page = (p: PageQuery) => ({ items: [], total: 0, offset: p.offset ?? 0, limit: p.limit ?? 100, next_offset: null });
  const summary = { events_observed: 0, unique_keys_observed: 0, rule_fields_loaded: 0, overflow_dropped: 0, max_keys: 10_000, uptime_seconds: 0, intersection_count: 0, unknown_count: 0, missing_count: 0 };
  return {
    report: (p) => ({ summary, unknown: page(p), missing: page(p) }),
    unknown: page,
    missing: page,
    reset: () => ({ status: 'reset', previous_keys: 0, previous_events: 0 }),
  };
}
