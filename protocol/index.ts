// protocol/: the wire shapes, config blocks, decoders and catalogues every other folder shares; it imports
// nothing of ours. Other folders import it only through this file.
export { CacheInvalidatedResponse, CorrelationListResponse, CorrelationStateResponse, DispositionSummary, HealthResponse, IncidentListResponse, IngestSummary, ReadyResponse, ReloadResponse, ResolveResponse, RiskListResponse, RulesRecord, SilenceCreatedResponse, SilenceDeletedResponse, SilenceListResponse, SourceListResponse, StatusRecord } from './api-records.js';
export type { DynamicSourceInfo, IncidentRecord, JsonObject, RiskEntity, Silence } from './api-records.js';
export { BundleQuery, CorrelationStateQuery, IdParams, PageQuery, SilenceCreateBody, SourceIdParams, SourceResolveBody, TAIL_LEVELS, TailQuery, TapQuery } from './api-requests.js';
export type { TailLevel } from './api-requests.js';
export { AUDIT_GENESIS_HASH, AuditDraft, AuditListResponse, AuditQuery, AuditRecord } from './audit-record.js';
export { ApiAuthConfig, DaemonConfig } from './config.js';
export type { LogsourceMap } from './config.js';
export { CORRELATION_TYPES } from './correlation-result.js';
export type { CorrelationGroupSnapshot, CorrelationResult, CorrelationSummary, CorrelationWindow, EventRef } from './correlation-result.js';
export { InputFormatSchema, LineSplitter, MAX_LINE_BYTES, decodeEvent, decodeLine, readJsonObjects, splitLines } from './decode/index.js';
export type { InputFormat, JsonEvent, LineFrame, RejectedLine } from './decode/index.js';
export type { DetectionResult, FieldMatch } from './detection-result.js';
export { parseDuration } from './duration.js';
export { API_ERRORS, apiError } from './errors.js';
export type { ApiErrorCode } from './errors.js';
export { IngestClosedError, IngestTooLargeError } from './event-ingest.js';
export type { EventIngest } from './event-ingest.js';
export { literalUnion } from './literal-union.js';
export type { LiveSink, LiveStream, TailRequest, TapRequest } from './live-session.js';
export { bindZeroed, createMetrics } from './metrics.js';
export type { MetricHandles, Metrics } from './metrics.js';
export type { AlertPipelineFile } from './alert-pipeline.js';
export type { SilenceSpec } from './alert-pipeline.js';
export type { AlertMatcher } from './alert-pipeline.js';
export { AlertPipelineFileSchema } from './alert-pipeline.js';
export { RiskFileSchema } from './risk.js';
export type { RiskFile } from './risk.js';
