export { BatchProcessor, TICK_EVERY_MS } from './batch-processor.js';
export type { ActiveRules, BatchProcessorDeps, CommittedResult, EvaluatingBatch, JournalBuffer, ResultLine } from './batch-processor.js';
export {
  carryOver,
  CORRELATION_KIND,
  CORRELATION_TICK_KIND,
  createCorrelationKinds,
  definitionsRecord,
} from './correlation-state.js';
export type { CorrelationRecoveryReport, TickFrontier } from './correlation-state.js';
export type { DroppedCorrelationState } from './foreign-groups.js';
export { create as createDecoder, configSchema as decodeConfigSchema } from './decode-stage.js';
export type { DecodeConfig, Decoder } from './decode-stage.js';
export { create as createDlqWriter, configSchema as dlqConfigSchema } from './dlq-writer.js';
export type { AppendLines, DlqConfig, DlqEntry, DlqWriter } from './dlq-writer.js';
export { admitSources } from './admission.js';
export type { Admission } from './admission.js';
export { EventPipeline } from './event-pipeline.js';
export type { EventPipelineDeps } from './event-pipeline.js';
export { EventDetector } from './event-results.js';
export type { EmitDetection, SigmaResult } from './event-results.js';
export { InputQueue, QueueClosedError, UnitTooLargeError } from './input-queue.js';
export type { InputQueueMetrics, InputUnit, UnitOutcome } from './input-queue.js';
export { create as createFileSink, configSchema as fileSinkConfigSchema } from './sinks/file-sink.js';
export type { FileSinkConfig } from './sinks/file-sink.js';
export { parseSinkUri } from './sinks/sink-uri.js';
export type { SinkSpec } from './sinks/sink-uri.js';
export { backoffMs, SinkQueueDepths, SinkWorker } from './sinks/sink-worker.js';
export type { DeliveryOptions, SinkTarget } from './sinks/sink-worker.js';
export { create as createStdoutSink, configSchema as stdoutSinkConfigSchema } from './sinks/stdout-sink.js';
export type { LineWritable, StdoutSinkConfig } from './sinks/stdout-sink.js';
export { create as createHttpSource, configSchema as httpSourceConfigSchema } from './sources/http-source.js';
export type { HttpIngest, HttpSourceConfig, HttpSourceDeps, IngestBatch } from './sources/http-source.js';
export { create as createStdinSource, configSchema as stdinConfigSchema } from './sources/stdin-source.js';
export type { StdinConfig, StdinDeps } from './sources/stdin-source.js';
export type { IngestSource } from './sources/ingest-source.js';
export { sleep, systemClock } from './stage-context.js';
export type { Clock, StageContext } from './stage-context.js';
export { create as createTailFanout, configSchema as tailConfigSchema } from './tail-fanout.js';
export type { TailConfig, TailFanout, TailOpen, TailRequest, TailSink } from './tail-fanout.js';
export { createBatchDetector, detectRules } from './detect/detect-batch.js';
export type { BatchDetector, CorrelationInput, DetectedBatch, DetectRules, DetectSettings, ResultHead } from './detect/detect-batch.js';
export { inlineDetector } from './detect/detector.js';
export type { Detector } from './detect/detector.js';
export { buildRuleSetFrom, resolvePipelines } from './detect/rule-inputs.js';
export type { PipelineInput, RuleInputs } from './detect/rule-inputs.js';
export { startWorkerPool } from './detect/worker-pool.js';
export type { WorkerPoolOptions } from './detect/worker-pool.js';
export { ALERT_KIND, AlertStage, metricsObserver, unixSeconds } from './alert-stage.js';
export { RISK_KIND, riskMetricsObserver, RiskStage } from './risk-stage.js';
export { DISPOSITION_KIND, DispositionStage } from './disposition-stage.js';
