import { expect } from 'chai';
import { MAX_STATUS_TEXT } from '../../../src/core/world-state/says-in-progress.js';
import { fingerprintResult } from '../../../src/core/result-fingerprint.js';
import { resolveOptions } from '../../../src/core/policy.js';

/** Asked the way the ledger asks it: through the result's fingerprint. */
function saysInProgress(result: unknown): boolean {
  return fingerprintResult(result, resolveOptions().defaultTool, 1 << 20).inProgress === true;
}

describe('world-state/says-in-progress: a result reporting a state still moving', () => {
  it('reads one status of the result itself, as an object, JSON text, an envelope or a line of text', () => {
    expect(saysInProgress({ job_id: 'j-42', status: 'running' })).to.equal(true);
    expect(saysInProgress('{"id":"dep-1","state":"IN_PROGRESS"}')).to.equal(true);
    expect(saysInProgress({ status: 'success', data: { id: 'exp-9', state: 'pending' } })).to.equal(true);
    expect(saysInProgress({ run: { id: 123, conclusion: null, status: 'queued' } })).to.equal(true);
    expect(saysInProgress('Export 77\nStatus: Processing\n')).to.equal(true);
    expect(saysInProgress({ phase: 'Provisioning' })).to.equal(true);
  });

  it("reads the clouds' and CI's own status shapes: GitHub's combined status over its parts, Azure's provisioningState, Vercel's readyState, a sentence that says it", () => {
    for (const answer of [
      { state: 'pending', sha: 'a1b2c3', statuses: [{ context: 'ci/build', state: 'pending' }, { context: 'ci/lint', state: 'success' }] },
      { id: '/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/vm1', name: 'vm1', properties: { provisioningState: 'Updating' } },
      { id: 'dpl_89qjc', url: 'web-git-fix.vercel.app', readyState: 'BUILDING' },
      { status: { phase: 'Running' }, metadata: { name: 'job-1' } },
      // A list of one is the thing itself: a SQL tool's one row for `SELECT status FROM jobs WHERE id = 5`.
      [{ status: 'running' }],
      [{ id: 5, job_status: 'queued', attempts: 1 }],
    ]) {
      expect(saysInProgress(answer), JSON.stringify(answer)).to.equal(true);
      expect(saysInProgress(JSON.stringify(answer)), `text ${JSON.stringify(answer)}`).to.equal(true);
    }
    expect(saysInProgress({ state: 'success', statuses: [{ context: 'ci/build', state: 'success' }] })).to.equal(false);
    for (const text of ['Build #42 is still running (step 3/7)', 'Your export is being processed. Check back shortly.', 'The report is queued.']) expect(saysInProgress(text), text).to.equal(true);
    // A steady state, or something else that goes on, is no status still moving.
    for (const text of ['Server is running on port 3000', 'Tests still failing: 2 of 9', 'Listening on http://localhost:8080']) expect(saysInProgress(text), text).to.equal(false);
  });

  it('is false for a finished state, a list of things with their own statuses, a status in prose, or a long plain text', () => {
    expect(saysInProgress({ job_id: 'j-42', status: 'succeeded' })).to.equal(false);
    expect(saysInProgress({ status: 'ok' })).to.equal(false);
    expect(saysInProgress({ tickets: [{ id: 1, status: 'pending' }, { id: 2, status: 'open' }] })).to.equal(false);
    expect(saysInProgress('[{"status":"running"},{"status":"queued"}]')).to.equal(false);
    expect(saysInProgress([{ id: 1, status: 'running' }, { id: 2, status: 'done' }])).to.equal(false);
    expect(saysInProgress('{"status":"running","jobs":[{"status":"done"}]}')).to.equal(false);
    expect(saysInProgress({ job: { status: 'running' }, status: 'failed' })).to.equal(false);
    expect(saysInProgress('The status: running late, says the driver')).to.equal(false);
    expect(saysInProgress(`Status: running\n${'x'.repeat(MAX_STATUS_TEXT)}`)).to.equal(false);
  });

  it('marks the fingerprint of such a success (inProgress), never an error or a list of things with their own statuses', () => {
    const policy = resolveOptions().defaultTool;
    expect(fingerprintResult({ status: 'running' }, policy, 1 << 20).inProgress).to.equal(true);
    expect(fingerprintResult({ status: 'done' }, policy, 1 << 20).inProgress).to.equal(undefined);
    expect(fingerprintResult({ content: [{ type: 'text', text: '{"status":"pending"}' }] }, policy, 1 << 20).inProgress).to.equal(true);
    expect(fingerprintResult({ items: [{ status: 'running' }, { status: 'running' }] }, policy, 1 << 20).inProgress).to.equal(undefined);
  });

  it("reads AWS's status shapes: a status named for its subject, a compound IN_PROGRESS, a describe of one thing as a list of one", () => {
    // Before, each of these was read as data: a stack polled every 15 s while CloudFormation
    // created it answered the same CREATE_IN_PROGRESS, and the fifth look stopped the run.
    const stack = (status: string) => ({
      Stacks: [{
        StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/web/5b3c5e20-d3b1-11ee-9c2d-0a1b2c3d4e5f', StackName: 'web',
        Parameters: [{ ParameterKey: 'Env', ParameterValue: 'prod' }], CreationTime: '2026-12-06T03:00:00.000Z', StackStatus: status,
        DisableRollback: false, Tags: [], EnableTerminationProtection: false, DriftInformation: { StackDriftStatus: 'NOT_CHECKED' },
      }],
    });
    const answers: Array<[string, unknown, boolean]> = [
      ['a stack being created', stack('CREATE_IN_PROGRESS'), true],
      ['a stack rolling back an update', stack('UPDATE_ROLLBACK_IN_PROGRESS'), true],
      ['a stack created', stack('CREATE_COMPLETE'), false],
      ['a database being modified', { DBInstances: [{ DBInstanceIdentifier: 'db-1', DBInstanceStatus: 'modifying', Engine: 'postgres' }] }, true],
      ['a database available', { DBInstances: [{ DBInstanceIdentifier: 'db-1', DBInstanceStatus: 'available', Engine: 'postgres' }] }, false],
      ['a CodeBuild build, its phases listed', { builds: [{ id: 'web:1a2b', buildNumber: 42, buildStatus: 'IN_PROGRESS', currentPhase: 'BUILD', phases: [{ phaseType: 'SUBMITTED', phaseStatus: 'SUCCEEDED' }, { phaseType: 'BUILD' }] }] }, true],
      ['a training job', { TrainingJobName: 'tj-1', TrainingJobStatus: 'InProgress', RoleArn: 'arn:aws:iam::123456789012:role/sm' }, true],
      ['a Glue job run', { JobRun: { Id: 'jr_1', JobName: 'etl', JobRunState: 'RUNNING' } }, true],
      ['a wrapper of one', { cluster: { name: 'prod', arn: 'arn:aws:eks:eu-west-1:123456789012:cluster/prod', status: 'CREATING', version: '1.31' } }, true],
      ['a wrapper and a second member', { JobRun: { Id: 'jr_1', JobRunState: 'RUNNING' }, NextToken: 'tok' }, false],
      ['a message batch', { id: 'msgbatch_01', type: 'message_batch', processing_status: 'in_progress' }, true],
      ['two stacks, each with its own status', { Stacks: [stack('CREATE_IN_PROGRESS').Stacks[0], { ...stack('CREATE_COMPLETE').Stacks[0], StackName: 'db' }] }, false],
      ['an order shipped, paid for later', { order_id: '#W1', status: 'shipped', payment_status: 'pending' }, false],
      ['a job not running', { job_id: 'j-1', status: 'NOT_RUNNING' }, false],
      // A tau-bench order is `pending` until it ships: with its items listed it is data, one item or many.
      ['an order of one item, pending', { order_id: '#W2378156', user_id: 'yusuf_rossi_9620', items: [{ name: 'Keyboard', item_id: '1151293680', price: 272.33 }], status: 'pending' }, false],
      ['an order, wrapped', { order: { order_id: '#W2378156', items: [{ name: 'Keyboard', item_id: '1151293680' }, { name: 'Mouse', item_id: '2193628750' }], status: 'pending' } }, false],
    ];
    for (const [name, answer, moving] of answers) {
      for (const [form, result] of [['object', answer], ['JSON text', JSON.stringify(answer)], ['indented JSON text', JSON.stringify(answer, null, 2)], ['MCP text part', { content: [{ type: 'text', text: JSON.stringify(answer) }] }]] as Array<[string, unknown]>) {
        expect(saysInProgress(result), `${name} as ${form}`).to.equal(moving);
      }
    }
  });

  it('judges a JSON answer alike as an object, as JSON text and as an MCP text part, whatever its size', () => {
    // The GitHub MCP server answers get_workflow_run with the whole run as JSON text (~5 KB with
    // its repository objects); a tool of one's own may return the same run as an object. Before,
    // text over 1,024 characters was never read while objects were read at any size: the object
    // was polled and the text refused at its third look.
    const policy = resolveOptions().defaultTool;
    const detail = 'Exported rows of the billing table, partitioned by month. '.repeat(40);
    const answers: Array<[string, Record<string, unknown>, boolean]> = [
      ['a workflow run in progress', githubWorkflowRun('in_progress'), true],
      ['a workflow run completed', githubWorkflowRun('completed'), false],
      ['an export pending, in a JSend envelope', { status: 'success', data: { id: 'exp-9', state: 'pending', detail } }, true],
      ['an export done, in a JSend envelope', { status: 'success', data: { id: 'exp-9', state: 'done', detail } }, false],
      ['a status two levels down', { data: { deployment: { id: 4, state: 'pending', detail } } }, false],
      ['a list of jobs with their own statuses', { status: 'running', jobs: [{ id: 1, status: 'done', detail }] }, false],
    ];
    for (const [name, answer, moving] of answers) {
      expect(JSON.stringify(answer).length, name).to.be.above(2 * MAX_STATUS_TEXT);
      const forms: Array<[string, unknown]> = [
        ['object', answer],
        ['JSON.stringify text', JSON.stringify(answer)],
        ['indented JSON text', JSON.stringify(answer, null, 2)],
        ['MCP text part', { content: [{ type: 'text', text: JSON.stringify(answer) }] }],
      ];
      for (const [form, result] of forms) {
        expect(fingerprintResult(result, policy, 1 << 20).inProgress, `${name} as ${form}`).to.equal(moving ? true : undefined);
      }
    }
  });

  // Before, fal's `IN_QUEUE` was no moving state, and a crawl still scraping with `data: []` was an envelope around
  // zero items, "nothing found": either answered alike three times was refused, and the run stopped.
  it("reads job queues and crawlers: fal's and RunPod's IN_QUEUE, a Firecrawl crawl still scraping with nothing to show yet", () => {
    const crawling = { status: 'scraping', completed: 10, total: 50, creditsUsed: 10, expiresAt: '2026-12-08T12:00:00.000Z', data: [] };
    for (const answer of [{ status: 'IN_QUEUE', queue_position: 3 }, { id: 'sync-7f3a', status: 'IN_QUEUE', delayTime: 1200 }, crawling, { status: 'indexing', files: [] }]) {
      expect(saysInProgress(answer), JSON.stringify(answer)).to.equal(true);
      expect(saysInProgress(JSON.stringify(answer)), `text ${JSON.stringify(answer)}`).to.equal(true);
      expect(saysInProgress({ content: [{ type: 'text', text: JSON.stringify(answer) }] }), `MCP ${JSON.stringify(answer)}`).to.equal(true);
    }
    // Finished, an envelope around nothing found is still empty, as before.
    const policy = resolveOptions().defaultTool;
    for (const answer of [{ ...crawling, status: 'completed' }, { status: 'ok', results: [] }]) {
      expect(fingerprintResult(answer, policy, 1 << 20), JSON.stringify(answer)).to.deep.equal({ outcome: 'empty' });
      expect(fingerprintResult(JSON.stringify(answer), policy, 1 << 20), `text ${JSON.stringify(answer)}`).to.deep.equal({ outcome: 'empty' });
    }
  });

  it("reads Google Cloud's prefixed states: Vertex AI's JOB_STATE_RUNNING, Dataflow's currentState, a pipeline's PIPELINE_STATE_PENDING", () => {
    for (const answer of [
      { name: 'projects/p/locations/us-central1/customJobs/123', displayName: 'train-resnet', state: 'JOB_STATE_RUNNING', createTime: '2026-12-07T12:00:00Z' },
      { id: '2026-12-07_04_00_00-1234567890', name: 'wordcount', currentState: 'JOB_STATE_PENDING', type: 'JOB_TYPE_BATCH' },
      { name: 'projects/p/locations/us-central1/pipelineJobs/pl-1', state: 'PIPELINE_STATE_RUNNING' },
    ]) {
      expect(saysInProgress(answer), JSON.stringify(answer)).to.equal(true);
      expect(saysInProgress(JSON.stringify(answer)), `text ${JSON.stringify(answer)}`).to.equal(true);
    }
    for (const state of ['JOB_STATE_SUCCEEDED', 'JOB_STATE_FAILED', 'NOT_RUNNING', 'not-pending']) expect(saysInProgress({ name: 'projects/p/jobs/1', state }), state).to.equal(false);
  });

  it('reads a status line in plain text only while the text is short: a long log that mentions one is no status answer', () => {
    const policy = resolveOptions().defaultTool;
    const log = `Status: running\n${'2026-12-06T03:00:00Z step ok\n'.repeat(60)}`;
    expect(log.length).to.be.above(MAX_STATUS_TEXT);
    expect(fingerprintResult(log, policy, 1 << 20).inProgress).to.equal(undefined);
    expect(fingerprintResult('Export 77\nStatus: Processing\n', policy, 1 << 20).inProgress).to.equal(true);
  });
});

/** A workflow run as GitHub's REST API documents it (GET /repos/{owner}/{repo}/actions/runs/{run_id}). */
function githubWorkflowRun(status: string): Record<string, unknown> {
  const repository = (name: string) => ({
    id: 1296269, node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5', name, full_name: `octo-org/${name}`, private: false,
    owner: { login: 'octo-org', id: 9919, node_id: 'MDEyOk9yZ2FuaXphdGlvbjk5MTk=', avatar_url: 'https://avatars.githubusercontent.com/u/9919?v=4', url: 'https://api.github.com/users/octo-org', html_url: 'https://github.com/octo-org', type: 'Organization', site_admin: false },
    html_url: `https://github.com/octo-org/${name}`, description: 'This your first repo!', fork: false, url: `https://api.github.com/repos/octo-org/${name}`,
    branches_url: `https://api.github.com/repos/octo-org/${name}/branches{/branch}`, commits_url: `https://api.github.com/repos/octo-org/${name}/commits{/sha}`,
    contents_url: `https://api.github.com/repos/octo-org/${name}/contents/{+path}`, issues_url: `https://api.github.com/repos/octo-org/${name}/issues{/number}`,
    pulls_url: `https://api.github.com/repos/octo-org/${name}/pulls{/number}`, releases_url: `https://api.github.com/repos/octo-org/${name}/releases{/id}`,
  });
  return {
    id: 30433642, name: 'Build', node_id: 'MDEyOldvcmtmbG93IFJ1bjI2OTI4OQ==', check_suite_id: 42, check_suite_node_id: 'MDEwOkNoZWNrU3VpdGU0Mg==',
    head_branch: 'main', head_sha: 'acb5820ced9479c074f688cc328bf03f341a511d', path: '.github/workflows/build.yml@main', run_number: 562,
    event: 'push', display_title: 'Update README.md', status, conclusion: status === 'completed' ? 'success' : null, workflow_id: 159038,
    url: 'https://api.github.com/repos/octo-org/octo-repo/actions/runs/30433642', html_url: 'https://github.com/octo-org/octo-repo/actions/runs/30433642',
    pull_requests: [], created_at: '2026-12-06T03:00:00Z', updated_at: '2026-12-06T03:00:05Z',
    actor: { login: 'octocat', id: 1, node_id: 'MDQ6VXNlcjE=', avatar_url: 'https://github.com/images/error/octocat_happy.gif', type: 'User', site_admin: false },
    run_attempt: 1, run_started_at: '2026-12-06T03:00:00Z',
    jobs_url: 'https://api.github.com/repos/octo-org/octo-repo/actions/runs/30433642/jobs', logs_url: 'https://api.github.com/repos/octo-org/octo-repo/actions/runs/30433642/logs',
    check_suite_url: 'https://api.github.com/repos/octo-org/octo-repo/check-suites/414944374', artifacts_url: 'https://api.github.com/repos/octo-org/octo-repo/actions/runs/30433642/artifacts',
    cancel_url: 'https://api.github.com/repos/octo-org/octo-repo/actions/runs/30433642/cancel', rerun_url: 'https://api.github.com/repos/octo-org/octo-repo/actions/runs/30433642/rerun',
    workflow_url: 'https://api.github.com/repos/octo-org/octo-repo/actions/workflows/159038',
    head_commit: { id: 'acb5820ced9479c074f688cc328bf03f341a511d', tree_id: 'd23f6eedb1e1b9610bbc754ddb5197bfe7271223', message: 'Create linter.yaml', timestamp: '2026-12-06T02:59:00Z', author: { name: 'Octo Cat', email: 'octocat@github.com' }, committer: { name: 'GitHub', email: 'noreply@github.com' } },
    repository: repository('octo-repo'),
    head_repository: repository('octo-repo'),
  };
}
