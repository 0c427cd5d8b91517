import { expect } from 'chai';
import { encodeExportTraceServiceResponse, encodeRpcStatus } from '../../src/server/encode-otlp-protobuf-answer.js';
import { ExportTraceServiceResponseType, RpcStatusType } from '../helpers/otlp-trace-protobuf-schema.js';

describe('encodeExportTraceServiceResponse / encodeRpcStatus: the OTLP receiver\'s protobuf answers', () => {
  it('are the bytes protobufjs writes for ExportTraceServiceResponse and google.rpc.Status', () => {
    expect(encodeExportTraceServiceResponse(undefined)).to.deep.equal(Buffer.from(ExportTraceServiceResponseType.encode(ExportTraceServiceResponseType.create({})).finish()));
    for (const partial of [{ rejectedSpans: 0, errorMessage: '' }, { rejectedSpans: 3, errorMessage: 'trace t has more than 10 spans ✗' }, { rejectedSpans: 300_000, errorMessage: 'x'.repeat(300) }]) {
      const ours = encodeExportTraceServiceResponse(partial);
      expect(ours).to.deep.equal(Buffer.from(ExportTraceServiceResponseType.encode(ExportTraceServiceResponseType.create({ partialSuccess: partial })).finish()));
    }
    for (const [code, message] of [[3, 'bad'], [16, 'missing or wrong bearer token — ü'], [8, 'y'.repeat(200)]] as const) {
      expect(encodeRpcStatus(code, message)).to.deep.equal(Buffer.from(RpcStatusType.encode(RpcStatusType.create({ code, message })).finish()));
    }
  });
});
