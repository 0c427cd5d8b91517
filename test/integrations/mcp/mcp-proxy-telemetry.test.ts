// With OTEL_EXPORTER_OTLP_ENDPOINT set, the proxy exports loopguard's metrics and events like
// any other front (setupLoopGuardTelemetry), flushed when the session ends.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'chai';
import { METRIC_REFUSALS, EVENT_TOOL_REFUSED, EVENT_RUN_STOP } from '../../../src/telemetry/names.js';
import { connectThroughProxy, filesystemServer, temporaryFolder } from './mcp-proxy-helpers.js';

describe('loopguard mcp-proxy telemetry (OTLP)', function () {
  this.timeout(60_000);
  let receiver: Server;
  const bodies: Record<string, string[]> = {};

  before(async () => {
    receiver = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        (bodies[request.url ?? ''] ??= []).push(body);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  after(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

  it('exports the refusal and stop events and the refusals metric of the session\'s run', async () => {
    const folder = await temporaryFolder();
    try {
      const file = join(folder.dir, 'a.md');
      await writeFile(file, 'a\n');
      const proxied = await connectThroughProxy(filesystemServer(folder.dir), ['--round-gap-ms', '0'], {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`, OTEL_SERVICE_NAME: '' },
      });
      for (let index = 0; index < 5; index++) await proxied.client.callTool({ name: 'read_text_file', arguments: { path: file } });
      await proxied.close(); // the session ends: the proxy flushes on its way out
      const logs = (bodies['/v1/logs'] ?? []).join('\n');
      const metrics = (bodies['/v1/metrics'] ?? []).join('\n');
      expect(logs).to.contain(EVENT_TOOL_REFUSED);
      expect(logs).to.contain(EVENT_RUN_STOP);
      expect(metrics).to.contain(METRIC_REFUSALS);
      expect(metrics).to.contain('loopguard-mcp-proxy');
    } finally {
      await folder.remove();
    }
  });
});
