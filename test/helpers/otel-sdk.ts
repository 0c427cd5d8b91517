// The OpenTelemetry trace SDK the tests build providers with. `@opentelemetry/sdk-trace` is the
// trace SDK of both supported lines: OTel JS 2.x ships it from 2.9 (sdk-trace-base and
// sdk-trace-node are thin shims over it there) and 3.x ships nothing else (sdk-trace-base and
// sdk-trace-node are gone). Its API is the same on both: `TracerProvider` (2.x's
// BasicTracerProvider) and span processors taking an options object (`{ exporter }`). CI runs
// the suite once per line (npm test: 2.x, .ci/lane-node24.sh: 3.x).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export {
  AlwaysOffSampler,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
  type SpanLimits,
} from '@opentelemetry/sdk-trace';

/** Version of an installed package (3.x OpenTelemetry packages export no `./package.json`). */
export function installedVersion(name: string): string {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version: string };
      if (pkg.name === name) return pkg.version;
    } catch {
      // no package.json at this level
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json found for ${name}`);
    dir = parent;
  }
}

/** Major version of the installed trace SDK: 2 or 3. */
export const SDK_TRACE_MAJOR = Number(installedVersion('@opentelemetry/sdk-trace').split('.')[0]);
