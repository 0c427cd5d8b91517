import { escapeJsonText } from './escape-terminal.js';
import type { ReplayReportRenderer, ReportOutput } from './report-output.js';
import type { RunReport } from './run-report.js';

const DECISIONS_PER_WRITE = 2048;

/**
 * `--format json`: one object per run per line, written as each run ends. The decisions
 * array is written in chunks so a run of a million calls never becomes one giant string.
 */
export function createJsonReportRenderer(output: ReportOutput): ReplayReportRenderer {
  return {
    async begin() {},
    async run(report: RunReport) {
      const head = {
        run: report.run,
        file: report.file,
        profile: report.profile,
        calls: report.calls,
        executed: report.executed,
        refused: report.refused,
        skipped: report.skipped,
        stop: report.stop ? { reason: report.stop.reason, round: report.stop.round, call: report.stop.call } : null,
      };
      const headText = escapeJsonText(JSON.stringify(head));
      await output.write(`${headText.slice(0, -1)},"decisions":[`);
      let chunk: string[] = [];
      let wroteAny = false;
      const flush = async (): Promise<void> => {
        if (chunk.length === 0) return;
        await output.write((wroteAny ? ',' : '') + escapeJsonText(chunk.join(',')));
        wroteAny = true;
        chunk = [];
      };
      for (const decision of report.decisions()) {
        chunk.push(JSON.stringify(decision));
        if (chunk.length === DECISIONS_PER_WRITE) await flush();
      }
      await flush();
      await output.write(`],"saved":${JSON.stringify(report.saved)}}\n`);
    },
    async end() {},
  };
}
