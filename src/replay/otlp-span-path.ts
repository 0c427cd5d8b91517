/** Paths of the first spans of the first scopes of a request's first resources, made once. */
const CACHED_RESOURCES = 4;
const CACHED_SCOPES = 4;
const CACHED_SPANS = 1024;
const cachedPaths: Array<Array<string | undefined> | undefined> = [];

/**
 * A span's path inside its ExportTraceServiceRequest, for messages:
 * `resourceSpans[0].scopeSpans[0].spans[3]`.
 *
 * Every collected span keeps its path, and the same paths come back in every request: those of
 * the first resources, scopes and spans are made once and shared (bounded: 4 × 4 × 1024 paths
 * at most). Measured (bench/probes/serve-trace-memory.ts, heap snapshot by type): the template
 * string made per span was a rope of 6 cons-string nodes, 190 of the 870 B a live span kept.
 */
export function otlpSpanPath(resource: number, scope: number, span: number): string {
  if (resource >= CACHED_RESOURCES || scope >= CACHED_SCOPES || span >= CACHED_SPANS) return pathText(resource, scope, span);
  const paths = (cachedPaths[resource * CACHED_SCOPES + scope] ??= []);
  return (paths[span] ??= pathText(resource, scope, span));
}

function pathText(resource: number, scope: number, span: number): string {
  return `resourceSpans[${resource}].scopeSpans[${scope}].spans[${span}]`;
}
