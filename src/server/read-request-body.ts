import type { IncomingMessage } from 'node:http';
import { createGunzip, createInflate, type Gunzip, type Inflate } from 'node:zlib';
import { ServerRequestError } from './server-request-error.js';

/**
 * Reads a request body, inflating `Content-Encoding: gzip` / `deflate`, and stops reading as
 * soon as either the bytes on the wire or the inflated bytes pass `maxBytes` (a small gzip
 * body can inflate to gigabytes). Errors are ServerRequestErrors: 413 too large, 415 an
 * encoding it does not know, 400 a body that does not inflate.
 */
export function readRequestBody(request: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase().trim();
  let inflater: Gunzip | Inflate | undefined;
  if (encoding === 'gzip') inflater = createGunzip();
  else if (encoding === 'deflate') inflater = createInflate();
  else if (encoding !== 'identity' && encoding !== '') {
    return Promise.reject(new ServerRequestError({ status: 415, code: 'unsupported_encoding', message: `Content-Encoding ${JSON.stringify(encoding)} is not supported; send gzip, deflate or none` }));
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    request.resume();
    return Promise.reject(tooLarge(maxBytes));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let wire = 0;
    let settled = false;
    const fail = (error: ServerRequestError): void => {
      if (settled) return;
      settled = true;
      inflater?.destroy();
      // Drain what is left so the connection can answer; nothing more is kept.
      request.unpipe();
      request.resume();
      reject(error);
    };
    const sink = inflater ?? request;
    sink.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) fail(tooLarge(maxBytes));
      else chunks.push(chunk);
    });
    sink.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size));
    });
    sink.on('error', (error: Error) => fail(new ServerRequestError({ status: 400, code: 'bad_encoding', message: `the body is not valid ${encoding}: ${error.message}` })));
    if (inflater !== undefined) {
      request.on('data', (chunk: Buffer) => {
        wire += chunk.length;
        if (wire > maxBytes) fail(tooLarge(maxBytes));
      });
      request.on('error', () => fail(new ServerRequestError({ status: 400, code: 'aborted', message: 'the request was aborted' })));
      request.pipe(inflater);
    }
  });
}

function tooLarge(maxBytes: number): ServerRequestError {
  return new ServerRequestError({
    status: 413,
    code: 'body_too_large',
    message: `the body is larger than ${maxBytes} bytes (maxBodyBytes, --max-body-bytes); send smaller batches (a Collector's batch processor: send_batch_max_size)`,
  });
}
