// The subset of the OpenTelemetry logs protocol (opentelemetry-proto v1) sigmad reads and writes,
// parsed once by protobufjs. Field numbers are the upstream ones; fields sigmad never maps (flags,
// event name, dropped counts, schema URLs) are declared anyway so encoders that send them round-trip.
import protobuf from 'protobufjs';

const LOGS_PROTO = `
syntax = "proto3";
package opentelemetry.proto;

message AnyValue {
  oneof value {
    string string_value = 1;
    bool bool_value = 2;
    int64 int_value = 3;
    double double_value = 4;
    ArrayValue array_value = 5;
    KeyValueList kvlist_value = 6;
    bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
message KeyValue { string key = 1; AnyValue value = 2; }
message InstrumentationScope {
  string name = 1;
  string version = 2;
  repeated KeyValue attributes = 3;
  uint32 dropped_attributes_count = 4;
}
message Resource { repeated KeyValue attributes = 1; uint32 dropped_attributes_count = 2; }
message LogRecord {
  fixed64 time_unix_nano = 1;
  fixed64 observed_time_unix_nano = 11;
  int32 severity_number = 2;
  string severity_text = 3;
  AnyValue body = 5;
  repeated KeyValue attributes = 6;
  uint32 dropped_attributes_count = 7;
  fixed32 flags = 8;
  bytes trace_id = 9;
  bytes span_id = 10;
  string event_name = 12;
}
message ScopeLogs { InstrumentationScope scope = 1; repeated LogRecord log_records = 2; string schema_url = 3; }
message ResourceLogs { Resource resource = 1; repeated ScopeLogs scope_logs = 2; string schema_url = 3; }
message ExportLogsServiceRequest { repeated ResourceLogs resource_logs = 1; }
message ExportLogsPartialSuccess { int64 rejected_log_records = 1; string error_message = 2; }
message ExportLogsServiceResponse { ExportLogsPartialSuccess partial_success = 1; }
service LogsService { rpc Export(ExportLogsServiceRequest) returns (ExportLogsServiceResponse) {} }
`;

let root: protobuf.Root | undefined;
const types = new Map<string, protobuf.Type>();

/** A message type, the schema parsed on first use: ≈ 5 ms that every process start paid at import time. */
function messageType(name: string): protobuf.Type {
  let type = types.get(name);
  if (type === undefined) {
    root ??= protobuf.parse(LOGS_PROTO, { keepCase: false }).root;
    type = root.lookupType(`opentelemetry.proto.${name}`);
    types.set(name, type);
  }
  return type;
}

/** `ExportLogsServiceRequest` (camelCase field names, as in OTLP/JSON). */
export const exportLogsRequestType = (): protobuf.Type => messageType('ExportLogsServiceRequest');
export const exportLogsResponseType = (): protobuf.Type => messageType('ExportLogsServiceResponse');

/** The gRPC method path of `LogsService/Export` (the upstream package name, not ours). */
export const LOGS_EXPORT_PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';

const identity = (b: Buffer): Buffer => b;

/**
 * grpc-js service definition of `LogsService/Export` carrying raw message bytes, so servers and
 * clients decode (and report decode errors) themselves.
 */
export const LOGS_SERVICE_DEFINITION = {
  Export: {
    path: LOGS_EXPORT_PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: identity,
    requestDeserialize: identity,
    responseSerialize: identity,
    responseDeserialize: identity,
  },
} as const;
