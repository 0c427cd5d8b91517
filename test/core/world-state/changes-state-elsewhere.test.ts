import { expect } from 'chai';
import { classifyShellCommand } from '../../../src/core/world-state/classify-shell-command.js';

const changes = (command: string) => classifyShellCommand(command).changesStateElsewhere;

describe('world-state/changes-state-elsewhere: shell commands that do it again when run again', () => {
  it('knows the requests, pushes, triggers, deployments and inserts people write', () => {
    const writes = [
      'curl -X POST https://api.example.com/jobs -d @job.json',
      'curl -XPUT https://api.example.com/items/7',
      'curl --request=DELETE https://api.example.com/items/7',
      'curl -s -H "Content-Type: application/json" --data \'{"a":1}\' https://api.example.com/jobs',
      'curl -F file=@report.pdf https://upload.example.com',
      'curl -d @job.json -X POST https://api.example.com/jobs',
      'wget --post-data "a=1" https://api.example.com/jobs',
      'http POST api.example.com/jobs name=x',
      'git push origin main',
      'git -C repo commit -m "fix"',
      'git tag v1.2.0',
      'gh workflow run ci.yml --ref main',
      'gh run rerun 123',
      'gh pr create --fill',
      'gh issue comment 42 --body "done"',
      'gh api -X POST repos/acme/api/dispatches',
      'gh api repos/acme/api/issues -f title=Bug',
      "gh api graphql -f query='mutation { closeIssue(input: {issueId: \"I_1\"}) { issue { id } } }'",
      'kubectl apply -f deploy.yaml',
      'kubectl -n prod rollout restart deploy/web',
      'kubectl scale deploy/web --replicas=3',
      'docker run -d nginx',
      'docker compose up -d',
      'npm publish',
      'psql -c "INSERT INTO jobs VALUES (1)"',
      'sqlite3 app.db "update users set active = 1"',
      'aws ecs update-service --cluster c --service s --force-new-deployment',
      'aws lambda invoke --function-name f out.json',
      'aws s3 cp build/ s3://bucket/ --recursive',
      'gcloud run deploy web --image gcr.io/p/web',
      'terraform apply -auto-approve',
      'helm upgrade web ./chart',
      'sudo docker restart web',
      'timeout 60 gh workflow run deploy.yml',
    ];
    for (const command of writes) expect(changes(command), command).to.equal(true);
  });

  it('leaves the reads and polls people write alone, though the classifier says they may write', () => {
    const others = [
      'kubectl get pods',
      'kubectl -n prod rollout status deploy/web',
      'gh run view 123',
      'gh pr view 42 --json state',
      'gh api repos/acme/api/actions/runs/123',
      "gh api graphql -f query='query { repository(owner: \"acme\", name: \"api\") { id } }'",
      'curl -s https://api.example.com/health',
      'curl -X GET https://api.example.com/jobs/7',
      'curl -I https://example.com',
      'curl -sG https://api.example.com/search -d q=loopguard',
      'curl -G --data-urlencode "q=status:open" https://api.example.com/issues',
      // An explicit read method makes -d the body of a read: Elasticsearch's search, before or after the method.
      'curl -X GET localhost:9200/orders/_search -d \'{"query":{"term":{"status":"pending"}}}\'',
      'curl -s -d \'{"size":1}\' -XGET localhost:9200/orders/_search',
      'curl --request=GET --data-binary @query.json localhost:9200/_search',
      'wget -qO- https://example.com/status',
      'docker ps',
      'docker logs web --tail 50',
      'docker compose ps',
      'git status',
      'git tag',
      'git log -5',
      'npm test',
      'psql -c "SELECT count(*) FROM jobs"',
      'aws ecs describe-services --cluster c --services s',
      'aws s3 ls s3://bucket/',
      'gcloud run services describe web',
      'terraform plan',
      'helm status web',
      'python manage.py migrate',
    ];
    for (const command of others) expect(changes(command), command).to.equal(false);
  });

  it('makes a line that sleeps first no poll when it runs such a command', () => {
    expect(classifyShellCommand('sleep 60 && gh workflow run ci.yml')).to.include({ sleepsThenRuns: false, changesStateElsewhere: true });
    expect(classifyShellCommand('sleep 5; curl -X POST https://api.example.com/jobs')).to.include({ sleepsThenRuns: false });
    expect(classifyShellCommand('sleep 20; kubectl get pods')).to.include({ sleepsThenRuns: true, changesStateElsewhere: false });
    expect(classifyShellCommand('sleep 30 && gh run view 123 --json status')).to.include({ sleepsThenRuns: true });
    // A wait alone writes nothing; a look after it is a poll unless it writes (run-guard.ts factsOf).
    expect(classifyShellCommand('sleep 5')).to.include({ effect: 'read', sleepsOnly: true, pollsAfterSleep: true });
    // The wait after the look, or inside a loop, paces the look the same way.
    expect(classifyShellCommand('kubectl get pods; sleep 10')).to.include({ sleepsThenRuns: true });
    expect(classifyShellCommand('for i in 1 2 3; do curl -s localhost:3000/health; sleep 2; done')).to.include({ sleepsThenRuns: true });
    expect(classifyShellCommand('curl -s -X POST localhost:3000/jobs; sleep 2')).to.include({ sleepsThenRuns: false });
    expect(classifyShellCommand('kubectl get pods')).to.include({ sleepsThenRuns: false });
    expect(classifyShellCommand('sleep 1m; sleep 30')).to.include({ effect: 'read', sleepsOnly: true });
    expect(classifyShellCommand('sleep 5; date > stamp.txt')).to.include({ sleepsOnly: false, pollsAfterSleep: false });
    expect(classifyShellCommand('curl -s localhost:3000/health')).to.include({ sleepsOnly: false, pollsAfterSleep: true });
    expect(classifyShellCommand('curl -s -X POST localhost:3000/jobs')).to.include({ pollsAfterSleep: false });
  });

  it('makes a program that waits by itself a poll: kubectl rollout status / wait, gh run watch, docker wait, aws … wait, wait-on', () => {
    const waits = [
      'kubectl rollout status deployment/api --timeout=60s',
      'kubectl -n prod rollout status deploy/api',
      'kubectl wait --for=condition=ready pod -l app=api --timeout=120s',
      'oc rollout status dc/web',
      'gh run watch 123 --exit-status',
      'gh pr checks 42 --watch',
      'docker wait db',
      'aws cloudformation wait stack-create-complete --stack-name web',
      'az vm wait --created -g rg -n vm1',
      'gcloud compute operations wait op-123 --zone us-east1-b',
      'npx wait-on http://localhost:3000',
      'timeout 300 kubectl rollout status deploy/api',
      'cd infra && kubectl rollout status deploy/api',
    ];
    for (const command of waits) expect(classifyShellCommand(command), command).to.include({ sleepsThenRuns: true });
    const others = [
      'kubectl rollout restart deploy/api',
      'kubectl rollout history deploy/api',
      'kubectl get pods',
      'gh run view 123',
      'gh pr checks 42',
      'docker ps',
      'aws cloudformation describe-stacks --stack-name web',
      // A wait whose answer goes to a file, or after a write elsewhere, is no poll.
      'kubectl rollout status deploy/api > rollout.txt',
      'kubectl apply -f api.yaml && kubectl rollout status deploy/api',
    ];
    for (const command of others) expect(classifyShellCommand(command), command).to.include({ sleepsThenRuns: false });
  });
});
