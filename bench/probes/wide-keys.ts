/**
 * Probe (not part of `npm run bench`): the one-pass JSON text scan on objects wider than its
 * pairwise key check (src/core/json-text-shape.ts PAIRWISE_KEYS), against JSON.parse +
 * JSON.stringify of the same text. Three GitHub-issue-like objects of 60 keys, 6.7 KB.
 *   npx tsc -p bench/tsconfig.json && node .tmp/bench-build/bench/probes/wide-keys.js
 */
import { readJsonTextShape } from '../../src/core/json-text-shape.js';
import { compare, printComparison } from '../lib/compare.js';

const names = ['url', 'repository_url', 'labels_url', 'comments_url', 'events_url', 'html_url', 'id', 'node_id', 'number', 'title', 'user', 'labels', 'state', 'locked', 'assignee', 'assignees', 'milestone', 'comments', 'created_at', 'updated_at', 'closed_at', 'author_association', 'active_lock_reason', 'body', 'closed_by', 'reactions', 'timeline_url', 'performed_via_github_app', 'state_reason', 'draft', 'pull_request', 'score', 'sub_issues_summary', 'issue_dependencies_summary', 'type', 'login', 'avatar_url', 'gravatar_id', 'followers_url', 'following_url', 'gists_url', 'starred_url', 'subscriptions_url', 'organizations_url', 'repos_url', 'received_events_url', 'site_admin', 'name', 'color', 'default', 'description', 'total_count', 'incomplete_results', 'items', 'plus_one', 'minus_one', 'laugh', 'hooray', 'confused', 'heart'];
const wide = Object.fromEntries(names.map((name, index) => [name, `value ${index} of ${name}`]));
const text = JSON.stringify({ items: [wide, wide, wide] });
console.log(`${text.length} B, vouched for: ${readJsonTextShape(text)}`);
printComparison('wide objects', compare({ scan: () => readJsonTextShape(text), 'JSON.parse + stringify': () => JSON.stringify(JSON.parse(text)) }, { burst: 200 }));
