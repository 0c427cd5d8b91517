import type { CallEffect, ToolAnnotations, ToolPolicy } from '../../core/types.js';

/**
 * What a tool's MCP annotations (`tools/list`) say about its effect on the world, in the
 * order the policy reads them (docs/concepts/world-state.md): `readOnlyHint: true` is a read;
 * `destructiveHint: true` or `readOnlyHint: false` may write. Anything else says nothing
 * (undefined): the policy then decides (the well-known tool table, else `unknown`), which
 * leans to "new fact" — a wrong "read" would refuse a re-run after a write.
 *
 * `idempotentHint` and `openWorldHint` do not change the effect. An idempotent write still
 * changes the world the first time, so earlier reads may run again after it; its repeats are
 * what the outcome-confirmed rule judges (refused once the same outcome came back twice with
 * nothing written between). Refusing the second call on the hint alone would refuse writing a
 * file back after someone else changed it. An open-world read is still a read.
 *
 * A tool the app declared in its own policy (`readOnly`, `writes`, `approval`, `shell` or
 * `annotations` under `tools[name]`) keeps that declaration: the server's hints are
 * untrusted (MCP spec), the app's policy is not. Pass it as `declared`.
 */
export function effectFromMcpAnnotations(annotations: ToolAnnotations | undefined, declared?: ToolPolicy): CallEffect | undefined {
  if (declared !== undefined && declaresEffect(declared)) return undefined;
  if (annotations === undefined || annotations === null || typeof annotations !== 'object') return undefined;
  if (annotations.readOnlyHint === true) return 'read';
  if (annotations.destructiveHint === true || annotations.readOnlyHint === false) return 'write';
  return undefined;
}

function declaresEffect(policy: ToolPolicy): boolean {
  return (
    policy.readOnly !== undefined ||
    policy.writes !== undefined ||
    policy.approval !== undefined ||
    policy.shell !== undefined ||
    policy.annotations !== undefined
  );
}
