import { programName } from './program-name.js';

/**
 * Is this simple command one known to change state elsewhere, so that running it again does it
 * again: a request that posts, a push, a workflow triggered, a deployment, a row inserted?
 *
 * The shell classifier (classify-shell-command.ts) knows only reads; every other command "may
 * write", which is the safe side for reads after a write. It is the wrong side for a poll: a
 * line that sleeps then runs something is a poll, and its identical calls run until the poll
 * deadline (issue 24 #4). `sleep 60 && gh workflow run ci.yml` repeated was a new CI run every
 * minute for ten minutes; `sleep 5 && curl -X POST …/jobs` a new job each time. A command on
 * this list makes the line no poll, and its answer saying `queued` no status poll: it is judged
 * by its outcomes, as any write (document 001: a timeout does not establish that a tool never
 * executed; the worst thing loopguard can do is run a write twice).
 *
 * Narrow on purpose, one rule per program, each an explicit subcommand or option: a command not
 * listed keeps its poll (`kubectl get`, `gh run view`, `curl -s url` are the polls people write).
 * `words` are the command's words after wrappers (`sudo`, `timeout 60`, `env X=1`).
 */
export function changesStateElsewhere(words: readonly string[]): boolean {
  const rule = RULES.get(programName(words[0]));
  return rule !== undefined && rule(words);
}

type Rule = (words: readonly string[]) => boolean;

const READ_METHODS = /^(?:GET|HEAD|OPTIONS)$/i;
/**
 * curl's `-G` among short flags (`-sG`, `-Gs`): up to the first G (`[A-FH-Za-z]*G`), so a word of
 * many G's matches one way, not quadratically many (`^-[A-Za-z]*G`: a 54 KB word, 1.6 s).
 */
export const SHORT_FLAGS_WITH_G = /^-[A-FH-Za-z]*G[A-Za-z]*$/;
const SQL_WRITE = /\b(?:INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|TRUNCATE|MERGE|UPSERT|REPLACE)\b/i;

/**
 * `curl -X POST`, `-XPOST`, `--request PUT`, a body (`-d`, `--data*`, `--json`, `-F`), an upload
 * (`-T`). A body sent with an explicit read method is a read's (`curl -X GET …/_search -d '{…}'`,
 * Elasticsearch's search), and `-G` sends `-d` as a query. Forms and uploads stay writes.
 */
const curl: Rule = (words) => {
  let method: string | undefined;
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-X' || word === '--request') method = words[i + 1] ?? '';
    else if (word.startsWith('-X') && word.length > 2) method = word.slice(2);
    else if (word.startsWith('--request=')) method = word.slice('--request='.length);
  }
  if (method !== undefined && !READ_METHODS.test(method)) return true;
  const bodyIsRead = method !== undefined || words.some((word) => word === '--get' || SHORT_FLAGS_WITH_G.test(word));
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (/^(?:-d|--data(?:-raw|-binary|-urlencode|-ascii)?)(?:=|$)/.test(word) || /^-d./.test(word)) {
      if (!bodyIsRead) return true;
    } else if (/^(?:-F|-T|--json|--form(?:-string)?|--upload-file)(?:=|$)/.test(word) || /^-[FT]./.test(word)) {
      return true;
    }
  }
  return false;
};

/** `wget --post-data`, `--post-file`, `--method=PUT`, `--body-data`. */
const wget: Rule = (words) =>
  words.some((word, i) => /^--(?:post-data|post-file|body-data|body-file)(?:=|$)/.test(word) || (word.startsWith('--method') && !READ_METHODS.test(word.includes('=') ? word.slice(word.indexOf('=') + 1) : (words[i + 1] ?? ''))));

/** HTTPie: `http POST url`, `http PUT …` (a method word before the URL). */
const httpie: Rule = (words) => words.slice(1).some((word) => /^(?:POST|PUT|PATCH|DELETE)$/.test(word));

/** `git push`, `git commit`, `git tag <name>` (a bare `git tag` lists), `git merge`: the commit or the remote changes. */
const GIT_WRITES = new Set(['push', 'commit', 'merge', 'rebase', 'cherry-pick', 'revert', 'am']);
const git: Rule = (words) => {
  const [verb, object] = positional(words, 2);
  return GIT_WRITES.has(verb ?? '') || (verb === 'tag' && object !== undefined);
};

/** `gh workflow run`, `gh run rerun`, `gh pr create|merge|close|comment|review`, `gh issue create|…`, `gh release create`, `gh api -X POST` or with fields. */
const GH_WRITES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['workflow', new Set(['run', 'enable', 'disable'])],
  ['run', new Set(['rerun', 'cancel', 'delete'])],
  ['pr', new Set(['create', 'merge', 'close', 'reopen', 'comment', 'review', 'edit', 'ready'])],
  ['issue', new Set(['create', 'close', 'reopen', 'comment', 'edit', 'delete', 'transfer'])],
  ['release', new Set(['create', 'delete', 'edit', 'upload'])],
  ['repo', new Set(['create', 'delete', 'fork', 'rename', 'archive'])],
  ['secret', new Set(['set', 'delete'])],
  ['variable', new Set(['set', 'delete'])],
]);
const gh: Rule = (words) => {
  const [group, action] = positional(words, 2);
  // `gh api graphql -f query='…'` posts every query: a write only when it is a mutation.
  if (group === 'api' && action === 'graphql') return words.some((word) => /\bmutation\b/.test(word));
  if (group === 'api') return words.some((word, i) => ((word === '-X' || word === '--method') && !READ_METHODS.test(words[i + 1] ?? '')) || /^(?:-f|-F|--field|--raw-field|--input)(?:=|$)/.test(word));
  return group !== undefined && action !== undefined && GH_WRITES.get(group)?.has(action) === true;
};

/** `kubectl create|apply|delete|patch|scale|run|…`, `kubectl rollout restart|undo`. */
const KUBECTL_WRITES = new Set(['create', 'apply', 'delete', 'patch', 'replace', 'scale', 'run', 'expose', 'label', 'annotate', 'set', 'cordon', 'drain', 'taint', 'autoscale']);
const kubectl: Rule = (words) => {
  const [verb, object] = positional(words, 2);
  return KUBECTL_WRITES.has(verb ?? '') || (verb === 'rollout' && (object === 'restart' || object === 'undo'));
};

/** `docker run|push|rm|stop|…`, `docker compose up|down`. */
const DOCKER_WRITES = new Set(['run', 'push', 'rm', 'rmi', 'stop', 'start', 'restart', 'kill', 'create', 'build', 'tag', 'commit']);
const docker: Rule = (words) => {
  const [verb, object] = positional(words, 2);
  if (verb === 'compose') return object === 'up' || object === 'down' || object === 'restart' || object === 'run';
  return DOCKER_WRITES.has(verb ?? '') || (verb === 'container' && DOCKER_WRITES.has(object ?? ''));
};

/** `npm publish`, `yarn publish`, `pnpm publish`. */
const packagePublish: Rule = (words) => subcommandOf(words) === 'publish';

/** A SQL client given a statement that writes (`psql -c "INSERT …"`, `sqlite3 db "UPDATE …"`). */
const sqlClient: Rule = (words) => words.slice(1).some((word) => SQL_WRITE.test(word));

/** `aws ecs update-service`, `aws lambda invoke`, `aws s3 cp|mv|rm|sync`: the action names the write. */
const AWS_ACTION = /^(?:create|delete|put|update|start|stop|run|invoke|send|terminate|reboot|modify|register|deregister|publish|attach|detach|tag|untag|execute|submit|cancel|restore|import|deploy)(?:-|$)/;
const aws: Rule = (words) => {
  const [service, action] = positional(words, 2);
  if (service === 's3') return action === 'cp' || action === 'mv' || action === 'rm' || action === 'sync' || action === 'mb' || action === 'rb';
  return action !== undefined && AWS_ACTION.test(action);
};

/** `gcloud run deploy`, `gcloud builds submit`, `gcloud … create|delete|update`. */
const GCLOUD_WRITES = /^(?:create|delete|deploy|update|submit|start|stop|reset|resize|set-iam-policy|add-iam-policy-binding|import|cancel)$/;
const gcloud: Rule = (words) => positional(words, 6).some((word) => GCLOUD_WRITES.test(word));

/** `terraform apply|destroy|import`, `helm install|upgrade|uninstall|rollback`. */
const terraform: Rule = (words) => ['apply', 'destroy', 'import'].includes(subcommandOf(words) ?? '');
const helm: Rule = (words) => ['install', 'upgrade', 'uninstall', 'rollback', 'delete'].includes(subcommandOf(words) ?? '');

/** `sudo -u deploy docker restart web`: the command it runs. */
const sudo: Rule = (words) => {
  for (let i = 1; i < words.length; i++) {
    const word = words[i]!;
    if (word === '-u' || word === '-g' || word === '-U' || word === '-C' || word === '-h') i++;
    else if (!word.startsWith('-')) return changesStateElsewhere(words.slice(i));
  }
  return false;
};

const RULES: ReadonlyMap<string, Rule> = new Map([
  ['sudo', sudo],
  ['doas', sudo],
  ['curl', curl],
  ['wget', wget],
  ['http', httpie],
  ['https', httpie],
  ['git', git],
  ['gh', gh],
  ['kubectl', kubectl],
  ['docker', docker],
  ['podman', docker],
  ['npm', packagePublish],
  ['yarn', packagePublish],
  ['pnpm', packagePublish],
  ['psql', sqlClient],
  ['mysql', sqlClient],
  ['sqlite3', sqlClient],
  ['aws', aws],
  ['gcloud', gcloud],
  ['terraform', terraform],
  ['tofu', terraform],
  ['helm', helm],
]);

/** The first `count` words after the program that are not options (`git -C dir push` → `push`). */
function positional(words: readonly string[], count: number): string[] {
  const found: string[] = [];
  for (let i = 1; i < words.length && found.length < count; i++) {
    const word = words[i]!;
    if (word.startsWith('-')) {
      // `-C dir`, `-n ns`, `--namespace ns`: an option that takes the next word.
      if (OPTIONS_WITH_VALUE.has(word)) i++;
      continue;
    }
    found.push(word);
  }
  return found;
}

/** Global options that take a value, so the value is not read as a subcommand. */
const OPTIONS_WITH_VALUE = new Set(['-C', '-c', '-n', '--namespace', '--context', '--kubeconfig', '-R', '--repo', '--region', '--profile', '--project', '-f', '--file', '-H', '--host', '--git-dir', '--work-tree']);

function subcommandOf(words: readonly string[]): string | undefined {
  return positional(words, 1)[0];
}
