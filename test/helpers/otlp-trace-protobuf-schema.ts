import protobuf from 'protobufjs';

// The part of opentelemetry-proto (v1.x, collector/trace/v1 and trace/v1) the receiver reads,
// as a protobufjs JSON descriptor, for the tests: they encode fixtures with it and check the
// hand-written reader (src/server/read-otlp-protobuf-spans.ts) against protobufjs's decoding.
// protobufjs does the wire decoding, this says which field number is which. Field names are the OTLP/JSON names, so a decoded protobuf request has the
// shape of an OTLP/JSON one and the same readers take both. Fields not listed (links,
// dropped counts, trace state) are skipped by protobufjs as unknown fields.
const keyValue = { fields: { key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } } };
const SCHEMA = {
  nested: {
    otlp: {
      nested: {
        ExportTraceServiceRequest: { fields: { resourceSpans: { rule: 'repeated', type: 'ResourceSpans', id: 1 } } },
        ResourceSpans: {
          fields: {
            resource: { type: 'Resource', id: 1 },
            scopeSpans: { rule: 'repeated', type: 'ScopeSpans', id: 2 },
            schemaUrl: { type: 'string', id: 3 },
          },
        },
        Resource: { fields: { attributes: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
        ScopeSpans: {
          fields: {
            scope: { type: 'InstrumentationScope', id: 1 },
            spans: { rule: 'repeated', type: 'Span', id: 2 },
            schemaUrl: { type: 'string', id: 3 },
          },
        },
        InstrumentationScope: { fields: { name: { type: 'string', id: 1 }, version: { type: 'string', id: 2 } } },
        Span: {
          fields: {
            traceId: { type: 'bytes', id: 1 },
            spanId: { type: 'bytes', id: 2 },
            parentSpanId: { type: 'bytes', id: 4 },
            name: { type: 'string', id: 5 },
            kind: { type: 'int32', id: 6 },
            startTimeUnixNano: { type: 'fixed64', id: 7 },
            endTimeUnixNano: { type: 'fixed64', id: 8 },
            attributes: { rule: 'repeated', type: 'KeyValue', id: 9 },
            events: { rule: 'repeated', type: 'Event', id: 11 },
            status: { type: 'Status', id: 15 },
          },
        },
        Event: {
          fields: {
            timeUnixNano: { type: 'fixed64', id: 1 },
            name: { type: 'string', id: 2 },
            attributes: { rule: 'repeated', type: 'KeyValue', id: 3 },
          },
        },
        Status: { fields: { message: { type: 'string', id: 2 }, code: { type: 'int32', id: 3 } } },
        KeyValue: keyValue,
        AnyValue: {
          oneofs: { value: { oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'] } },
          fields: {
            stringValue: { type: 'string', id: 1 },
            boolValue: { type: 'bool', id: 2 },
            intValue: { type: 'int64', id: 3 },
            doubleValue: { type: 'double', id: 4 },
            arrayValue: { type: 'ArrayValue', id: 5 },
            kvlistValue: { type: 'KeyValueList', id: 6 },
            bytesValue: { type: 'bytes', id: 7 },
          },
        },
        ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
        KeyValueList: { fields: { values: { rule: 'repeated', type: 'KeyValue', id: 1 } } },
        ExportTraceServiceResponse: { fields: { partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 } } },
        ExportTracePartialSuccess: { fields: { rejectedSpans: { type: 'int64', id: 1 }, errorMessage: { type: 'string', id: 2 } } },
        // google.rpc.Status: the body of an OTLP/HTTP error response.
        RpcStatus: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 } } },
      },
    },
  },
};

const root = protobuf.Root.fromJSON(SCHEMA);
export const ExportTraceServiceRequestType = root.lookupType('otlp.ExportTraceServiceRequest');
export const ExportTraceServiceResponseType = root.lookupType('otlp.ExportTraceServiceResponse');
export const RpcStatusType = root.lookupType('otlp.RpcStatus');
