// The OpenTelemetry logs API loopguard's events go through. From @opentelemetry/api 1.10 (the
// API of OTel JS 3.x) the logs API is part of @opentelemetry/api and the 3.x SDK's loggers are
// registered and looked up there; before it, it is the separate @opentelemetry/api-logs package
// (OTel JS 2.x), whose global is a different one. Using the API of the app's line keeps a
// LoggerProvider registered by either side visible to the other, and a 3.x app needs no
// api-logs. The types below are the part loopguard uses, the same in both packages.
import { createRequire } from 'node:module';
import * as api from '@opentelemetry/api';
import type { AttributeValue, Context } from '@opentelemetry/api';

/** Attributes of a log record loopguard emits. */
export type LogAttributes = Record<string, AttributeValue | undefined>;

/** A log record as loopguard emits it (a subset of the API's LogRecord). */
export interface LogRecordInput {
  eventName?: string;
  severityNumber?: number;
  severityText?: string;
  body?: string;
  attributes?: LogAttributes;
  context?: Context;
}

export interface Logger {
  emit(logRecord: LogRecordInput): void;
}

/** A LoggerProvider of either API line (the SDK's `LoggerProvider` of sdk-logs 0.2xx or 3.x). */
export interface LoggerProvider {
  getLogger(name: string, version?: string, options?: { schemaUrl?: string }): Logger;
}

export interface LogsApi {
  getLoggerProvider(): LoggerProvider;
  setGlobalLoggerProvider(provider: LoggerProvider): unknown;
  disable(): void;
}

/** The two severities loopguard uses (OpenTelemetry's SeverityNumber values). */
export const SEVERITY = { INFO: { number: 9, text: 'INFO' }, WARN: { number: 13, text: 'WARN' } } as const;

function loadLogsApi(): LogsApi {
  const fromApi = (api as unknown as { logs?: LogsApi }).logs;
  if (fromApi !== undefined) return fromApi;
  try {
    return (createRequire(import.meta.url)('@opentelemetry/api-logs') as { logs: LogsApi }).logs;
  } catch (error) {
    throw new Error(
      'loopguard/telemetry: with @opentelemetry/api before 1.10 (OpenTelemetry JS 2.x) the logs API is the package @opentelemetry/api-logs; install it, or @opentelemetry/api 1.10 or later (OpenTelemetry JS 3.x)',
      { cause: error },
    );
  }
}

export const logs: LogsApi = loadLogsApi();
