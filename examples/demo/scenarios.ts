// The demo's scenarios: the loops from the write-ups behind loopguard (see the README's
// sources), and the healthy runs it must leave alone. Each is a script for the same model
// and the same tools, run once without loopguard and once with it.
import type { LoopGuardOptions, RefusalReason, StopReason } from '../../src/core/types.js';
import type { BillingBehaviour, DemoToolName } from './demo-tools.js';
import type { AgentScript, ScriptedCall } from './scripted-agent-model.js';

export interface Scenario {
  id: string;
  title: string;
  /** One line: what the agent is doing. */
  story: string;
  prompt: string;
  tools: DemoToolName[];
  policy: LoopGuardOptions;
  billing?: BillingBehaviour;
  script: AgentScript;
  /** What loopguard must do; the demo exits non-zero when it does something else. */
  expect: { kind: 'caught'; stopReason?: StopReason; refusals: RefusalReason[]; takenAway?: DemoToolName[] } | { kind: 'healthy' };
}

const call = (tool: DemoToolName, args: Record<string, unknown>): ScriptedCall[] => [{ tool, args }];

/** Reworded queries that all bring back the same three pages (checked by the demo test). */
export const REWORDED_QUERIES = [
  'data retention for EU customers after contract termination',
  'retention period for European customer data',
  'personal data retention EU region',
  'data retention policy European customers contract end',
  'retention of EU customer data',
  'customer data retention in the EU',
  'retention rules for customer data stored in the EU',
  'how long EU data is retained',
  'EU personal data retention period',
  'customer data retention Europe',
  'EU region data retention',
  'retention of personal data for European customers',
  'data retention obligations EU customers',
  'retention timeline for EU customer data',
  'what happens to EU customer data retention',
  'retention duration EU workspaces data',
  'retention EU personal data customers',
];

const DOWN: BillingBehaviour = { failuresBeforeRecovery: Infinity, failureMessage: 'billing ledger unavailable (LEDGER_DOWN)' };

export const SCENARIOS: Scenario[] = [
  {
    id: 'reworded-search',
    title: 'Reworded search, same documents',
    story: 'Every call succeeds, every query is new, and the same three pages keep coming back.',
    prompt: 'How long do we keep an EU customer’s data after their contract ends?',
    tools: ['searchDocuments', 'readDocument'],
    policy: {},
    script: {
      turns: [
        call('searchDocuments', { query: REWORDED_QUERIES[0] }),
        call('readDocument', { id: 'data-retention' }),
        ...REWORDED_QUERIES.slice(1).map((query) => call('searchDocuments', { query })),
      ],
      answer: 'I could not find an EU-specific retention period after contract termination.',
      answerWhenStopped:
        'Deleted workspaces are removed from primary storage within 30 days and from backups within a further 35 days; audit logs are kept 400 days (Business) or 7 years (Enterprise). The docs say nothing EU-specific about contract termination.',
    },
    // The ladder: a nudge after the first stale round, search no longer offered after the third.
    // Offered only readDocument, the model answers from the pages it has.
    expect: { kind: 'caught', refusals: [], takenAway: ['searchDocuments'] },
  },
  {
    id: 'exact-repeat',
    title: 'The exact repeat',
    story: 'A chat agent fetches the connector’s site id, then asks for it again and again. (This scripted model heeds a refusal: told the value is already in the conversation, it uses it.)',
    prompt: 'Which issues are open in our Jira?',
    tools: ['getSiteId', 'listIssues'],
    policy: { profile: 'chat' },
    script: {
      turns: Array.from({ length: 8 }, () => call('getSiteId', { connector: 'jira' })),
      answer: 'I confirmed the Jira connection details, but I could not fetch the issues.',
      answerWhenStopped: 'I confirmed the Jira connection details, but I could not fetch the issues.',
      afterRefusal: {
        turns: [call('listIssues', { siteId: 'site-7f3a9c' })],
        answer: 'Three open issues: OPS-311 export stuck in queued (high), OPS-318 SCIM deactivation delayed, OPS-322 audit log duplicates.',
      },
    },
    expect: { kind: 'caught', refusals: ['repeat.back_to_back'] },
  },
  {
    id: 'retry-with-attempt-counter',
    title: 'Retry with an attempt counter',
    story: 'The billing service is down; the agent retries with attempt: 1, 2, 3… and the same error comes back.',
    prompt: 'Get invoice INV-2026-0042 for the customer.',
    tools: ['fetchInvoice'],
    policy: {},
    billing: DOWN,
    script: {
      turns: Array.from({ length: 12 }, (_, attempt) => call('fetchInvoice', { invoiceId: 'INV-2026-0042', attempt: attempt + 1 })),
      answer: 'The billing service did not answer after 12 attempts.',
      answerWhenStopped: 'The billing service is down (LEDGER_DOWN) — six identical attempts failed. Please retry later or check the status page.',
    },
    expect: { kind: 'caught', stopReason: 'consecutive_failures', refusals: [] },
  },
  {
    id: 'polling',
    title: 'Polling an export to completion',
    story: 'The agent starts an export and polls the same job until it finishes — identical calls, on purpose.',
    prompt: 'Export this month’s audit data and give me the download link.',
    tools: ['startExport', 'getExportStatus'],
    policy: { tools: { getExportStatus: { poll: { deadlineMs: 120_000 } } } },
    script: {
      turns: [
        call('startExport', { dataset: 'audit-2026-11' }),
        ...Array.from({ length: 4 }, () => call('getExportStatus', { jobId: 'exp-1042', waitSeconds: 10 })),
      ],
      answer: 'The export finished: 48,213 rows at https://exports.example/exp-1042.csv.gz',
      answerWhenStopped: 'The export was still running when I had to stop.',
    },
    expect: { kind: 'healthy' },
  },
  {
    id: 'pagination',
    title: 'Paging through the audit log',
    story: 'The agent walks the audit log page by page; the cursor advances every call.',
    prompt: 'Summarise this month’s audit log.',
    tools: ['listAuditEvents'],
    policy: { tools: { listAuditEvents: { cursorArg: 'cursor' } } },
    script: {
      turns: [
        call('listAuditEvents', { since: '2026-11-01' }),
        call('listAuditEvents', { since: '2026-11-01', cursor: 'page-1' }),
        call('listAuditEvents', { since: '2026-11-01', cursor: 'page-2' }),
        call('listAuditEvents', { since: '2026-11-01', cursor: 'page-3' }),
      ],
      answer: 'Ten events this month, including SSO enforcement, a token rotation and an audit export.',
      answerWhenStopped: 'I could only read part of the audit log.',
    },
    expect: { kind: 'healthy' },
  },
  {
    id: 'honest-retry',
    title: 'An honest retry',
    story: 'The billing service answers 503 twice, then recovers; the agent retries the same call.',
    prompt: 'Get invoice INV-2026-0042 for the customer.',
    tools: ['fetchInvoice'],
    policy: {},
    billing: { failuresBeforeRecovery: 2, failureStatus: 503, failureMessage: '503 Service Unavailable' },
    script: {
      turns: Array.from({ length: 3 }, () => call('fetchInvoice', { invoiceId: 'INV-2026-0042' })),
      answer: 'Invoice INV-2026-0042: EUR 1,440 for October 2026, paid.',
      answerWhenStopped: 'The billing service did not answer.',
    },
    expect: { kind: 'healthy' },
  },
];
