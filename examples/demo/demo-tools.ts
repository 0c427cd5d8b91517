// Real local tools for the demo: a document search over the bundled corpus, a connector
// lookup, a billing service that can be down or flaky, an export job to poll, and a paged
// audit log. Each call advances the virtual clock by a realistic latency.
import { tool } from 'ai';
import { z } from 'zod';

import { DocumentIndex } from './document-index.js';
import type { VirtualClock } from './virtual-clock.js';

/** How the billing service behaves in a scenario. */
export interface BillingBehaviour {
  /** Calls that fail before the service answers; Infinity = down for the whole run. */
  failuresBeforeRecovery: number;
  /** HTTP status of the failure: 503 is "overloaded", anything else a plain failure. */
  failureStatus?: number;
  failureMessage: string;
}

/** Thrown by the billing service, the way an HTTP client library would. */
export class BillingServiceError extends Error {
  override readonly name = 'BillingServiceError';
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

const index = new DocumentIndex();

const AUDIT_EVENTS = [
  'SSO enforced for the workspace', 'admin role granted to m.ortiz', 'export exp-1042 requested', 'API token rotated',
  'member k.lee deactivated by SCIM', 'retention override removed', 'billing contact changed', 'audit log export downloaded',
  'SAML certificate renewed', 'workspace region confirmed: eu-central',
];
const PAGE_SIZE = 3;

/** Every demo tool, bound to one run's clock and services; `executions` counts real runs. */
export function createDemoTools(clock: VirtualClock, billing: BillingBehaviour) {
  const executions: string[] = [];
  let billingCalls = 0;
  let exportStartedAt: number | undefined;
  const EXPORT_DURATION_MS = 38_000;

  const tools = {
    searchDocuments: tool({
      description: 'Search the Northwind Cloud documentation. Returns the three best matching pages.',
      inputSchema: z.object({ query: z.string() }),
      execute: async ({ query }) => {
        executions.push('searchDocuments');
        clock.advance(900);
        // tookMs changes on every call: loopguard strips it (a volatile result field).
        return { results: index.search(query, 3), tookMs: 850 + (query.length % 7) * 13 };
      },
    }),
    readDocument: tool({
      description: 'Read one documentation page by id.',
      inputSchema: z.object({ id: z.string() }),
      execute: async ({ id }) => {
        executions.push('readDocument');
        clock.advance(300);
        const document = index.get(id);
        return document ? { id, title: document.title, text: document.text } : { id, error: 'no such page' };
      },
    }),
    getSiteId: tool({
      description: 'Look up the site id of a connected issue tracker.',
      inputSchema: z.object({ connector: z.string() }),
      execute: async ({ connector }) => {
        executions.push('getSiteId');
        clock.advance(400);
        return { connector, siteId: 'site-7f3a9c', status: 'connected' };
      },
    }),
    listIssues: tool({
      description: 'List open issues of a tracker site.',
      inputSchema: z.object({ siteId: z.string() }),
      execute: async ({ siteId }) => {
        executions.push('listIssues');
        clock.advance(700);
        return {
          siteId,
          issues: [
            { key: 'OPS-311', title: 'Export job stuck in queued state', priority: 'high' },
            { key: 'OPS-318', title: 'SCIM deactivation delayed', priority: 'medium' },
            { key: 'OPS-322', title: 'Audit log pagination returns duplicates', priority: 'low' },
          ],
        };
      },
    }),
    fetchInvoice: tool({
      description: 'Fetch an invoice from the billing service.',
      inputSchema: z.object({ invoiceId: z.string(), attempt: z.number().optional() }),
      execute: async ({ invoiceId }) => {
        executions.push('fetchInvoice');
        billingCalls += 1;
        if (billingCalls <= billing.failuresBeforeRecovery) {
          clock.advance(2_500);
          throw new BillingServiceError(billing.failureMessage, billing.failureStatus);
        }
        clock.advance(600);
        return { invoiceId, amount: 1_440, currency: 'EUR', status: 'paid', period: '2026-10' };
      },
    }),
    startExport: tool({
      description: 'Start a background export of the workspace audit data. Returns a job id to poll.',
      inputSchema: z.object({ dataset: z.string() }),
      execute: async ({ dataset }) => {
        executions.push('startExport');
        clock.advance(500);
        exportStartedAt = clock.now();
        return { jobId: 'exp-1042', dataset, status: 'queued' };
      },
    }),
    getExportStatus: tool({
      description: 'Status of an export job. Waits up to waitSeconds for a change before answering.',
      inputSchema: z.object({ jobId: z.string(), waitSeconds: z.number() }),
      execute: async ({ jobId, waitSeconds }) => {
        executions.push('getExportStatus');
        const doneAt = (exportStartedAt ?? clock.now()) + EXPORT_DURATION_MS;
        clock.advance(Math.min(waitSeconds * 1_000, Math.max(doneAt - clock.now(), 0)) + 150);
        if (clock.now() < doneAt) return { jobId, status: 'running' };
        return { jobId, status: 'succeeded', rows: 48_213, downloadUrl: `https://exports.example/${jobId}.csv.gz` };
      },
    }),
    listAuditEvents: tool({
      description: 'List audit events, three per page. Pass nextCursor from the previous page to continue.',
      inputSchema: z.object({ since: z.string(), cursor: z.string().optional() }),
      execute: async ({ cursor }) => {
        executions.push('listAuditEvents');
        clock.advance(600);
        const start = cursor === undefined ? 0 : Number(cursor.replace('page-', '')) * PAGE_SIZE;
        const events = AUDIT_EVENTS.slice(start, start + PAGE_SIZE);
        const next = start + PAGE_SIZE < AUDIT_EVENTS.length ? `page-${start / PAGE_SIZE + 1}` : null;
        return { events, nextCursor: next };
      },
    }),
  };
  return { tools, executions };
}

export type DemoTools = ReturnType<typeof createDemoTools>['tools'];
export type DemoToolName = keyof DemoTools;
