// `npm run demo`: the loops from the write-ups behind loopguard, reproduced offline through the
// real Vercel AI SDK loop, each run once without loopguard and once with it. Exits non-zero if
// loopguard does not catch a loop or touches a healthy run.
//
// With OTEL_EXPORTER_OTLP_ENDPOINT set (e.g. the bundled collector: docker compose up, then
// OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 npm run demo), the runs' metrics, stop and
// refusal events and the AI SDK's spans are exported through setupLoopGuardTelemetry.
import { bufferOut, judge, printIntro, printLedger, printRound, printScenarioHeader, printSummary, printTotals, streamOut, type Verdict } from './print-report.js';
import { runScenario, type ScenarioResult } from './run-scenario.js';
import { SCENARIOS } from './scenarios.js';

/**
 * One short offline scenario per framework integration (a loop that gets stopped, an honest
 * run left alone), through each framework's real package: `npm run demo -- mcp` runs one.
 * Each returns true when loopguard behaved as expected.
 */
const INTEGRATION_DEMOS: Record<string, () => Promise<(out: (line: string) => void) => Promise<boolean>>> = {
  // Imported on demand: a demo of one integration loads only that framework.
  mcp: async () => (await import('./integrations/mcp.js')).runMcpDemo,
  'claude-agent-sdk': async () => (await import('./integrations/claude-agent-sdk.js')).runClaudeAgentSdkDemo,
  langchain: async () => (await import('./integrations/langchain.js')).runLangchainDemo,
};

async function runIntegrationDemos(names: string[], out: (line: string) => void): Promise<boolean> {
  let ok = true;
  for (const name of names) {
    out('');
    out(`── integration: ${name} ${'─'.repeat(Math.max(0, 60 - name.length))}`);
    const demo = await INTEGRATION_DEMOS[name]!();
    const behaved = await demo(out);
    out(behaved ? `   ✔ ${name}: loopguard behaved as expected` : `   ✘ ${name}: loopguard did NOT behave as expected`);
    ok &&= behaved;
  }
  return ok;
}

interface DemoTelemetry {
  listenerFor(guard: import('../../src/core/loop-guard.js').LoopGuard): void;
  shutdown(): Promise<void>;
}

async function startTelemetry(): Promise<DemoTelemetry | undefined> {
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT) return undefined;
  // Imported lazily: the offline demo never loads the exporters.
  const { setupLoopGuardTelemetry, createLoopGuardTelemetry } = await import('../../src/telemetry/index.js');
  const setup = setupLoopGuardTelemetry({ serviceName: 'loopguard-demo', shutdownOnExit: false });
  const perScenario: Array<{ shutdown(): void }> = [];
  return {
    // Each scenario has its own policy (profile, tool policies), hence its own engine; each gets
    // the same metrics and events as the setup's engine, on the providers the setup registered.
    listenerFor: (guard) => perScenario.push(createLoopGuardTelemetry({ guard })),
    shutdown: async () => {
      for (const telemetry of perScenario) telemetry.shutdown();
      await setup.shutdown();
    },
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  // `npm run demo -- reworded-search polling` runs only those scenarios.
  const wanted = process.argv.slice(2).filter((arg) => !arg.startsWith('-'));
  const integrations = Object.keys(INTEGRATION_DEMOS);
  const unknown = wanted.filter((id) => !SCENARIOS.some((scenario) => scenario.id === id) && !integrations.includes(id));
  if (unknown.length > 0) {
    process.stderr.write(`unknown scenario: ${unknown.join(', ')}; choose from ${[...SCENARIOS.map((scenario) => scenario.id), ...integrations].join(', ')}\n`);
    process.exitCode = 2;
    return;
  }
  const wantedIntegrations = wanted.length === 0 ? integrations : integrations.filter((name) => wanted.includes(name));
  if (wanted.length > 0 && wanted.every((id) => integrations.includes(id))) {
    // Only integration demos asked for: no AI SDK scenario table.
    const ok = await runIntegrationDemos(wantedIntegrations, streamOut(process.stdout));
    if (!ok) process.exitCode = 1;
    return;
  }
  const scenarios = wanted.length === 0 ? SCENARIOS : SCENARIOS.filter((scenario) => wanted.includes(scenario.id));

  const telemetry = await startTelemetry();
  // With LOOPGUARD_REDIS_URL (docker compose's redis://localhost:6379), the guarded runs are kept
  // in Redis through loopguard/redis: `npx loopguard runs --redis $LOOPGUARD_REDIS_URL` lists them.
  const redisUrl = process.env.LOOPGUARD_REDIS_URL;
  const store = redisUrl ? (await import('../../src/redis/index.js')).createRedisRunStore({ url: redisUrl }) : undefined;
  const out = streamOut(process.stdout);
  if (telemetry) out(`exporting telemetry to ${process.env.OTEL_EXPORTER_OTLP_ENDPOINT}`);

  // Every scenario runs first (well under a second), so the summary can come first.
  const results: ScenarioResult[] = [];
  const verdicts: Verdict[] = [];
  const details = bufferOut();
  for (const [index, scenario] of scenarios.entries()) {
    const result = await runScenario(scenario, {
      ...(store ? { store } : {}),
      telemetry: telemetry !== undefined,
      onGuard: (guard) => telemetry?.listenerFor(guard),
    });
    const verdict = judge(result);
    printScenarioHeader(details.out, scenario, index + 1, scenarios.length);
    for (const line of result.rounds) printRound(details.out, line);
    printLedger(details.out, result, verdict);
    results.push(result);
    verdicts.push(verdict);
  }

  printIntro(out);
  printSummary(out, results, verdicts);
  for (const line of details.lines) out(line);
  // The framework integrations, before the totals (the last lines are the totals).
  const integrationsOk = await runIntegrationDemos(wantedIntegrations, out);
  out();
  printTotals(out, results, verdicts, performance.now() - started);
  if (store) {
    out(`runs kept in Redis: npx loopguard runs --redis ${redisUrl}`);
    await store.close();
  }
  await telemetry?.shutdown();
  if (verdicts.some((verdict) => !verdict.ok) || !integrationsOk) process.exitCode = 1;
}

await main();
