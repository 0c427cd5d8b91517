// docs/operations/dashboards-and-alerts.md carries a runbook per alert rule, word for word the
// runbook panels of the dashboard (where each rule's runbook_url points): an edit to one without
// the other fails here, and so does an alert rule without a runbook on the page.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { REPO_ROOT } from '../cli/cli-test-helpers.js';

const page = readFileSync(join(REPO_ROOT, 'docs/operations/dashboards-and-alerts.md'), 'utf8');
const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, 'grafana/dashboards/loopguard-overview.json'), 'utf8')) as {
  panels: Array<{ title?: string; options?: { content?: string } }>;
};
const rules = (parse(readFileSync(join(REPO_ROOT, 'grafana/provisioning/alerting/loopguard-alerts.yaml'), 'utf8')) as {
  groups: Array<{ rules: Array<{ title: string }> }>;
}).groups.flatMap((group) => group.rules.map((rule) => rule.title));

/** The page's runbook block: the text between its `<!-- runbooks` and `<!-- /runbooks -->` markers. */
function runbookBlock(text: string): string {
  const start = text.indexOf('\n', text.indexOf('<!-- runbooks'));
  return text.slice(start, text.indexOf('<!-- /runbooks -->')).trim();
}

describe('documentation: a runbook per alert, the same as on the dashboard', () => {
  it('has a runbook section for every alert rule', () => {
    expect(rules.length).to.be.at.least(4);
    for (const title of rules) expect(page, title).to.include(`### ${title}\n`);
  });

  it('the page\'s runbooks are the dashboard\'s runbook panels, word for word', () => {
    const panels = dashboard.panels.filter((panel) => panel.title?.startsWith('Runbook: ')).map((panel) => panel.options!.content!.trim());
    expect(panels.length).to.equal(rules.length);
    expect(runbookBlock(page)).to.equal(panels.join('\n\n'));
  });
});
