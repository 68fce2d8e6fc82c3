// Each function's bundle (size, where the weight is, cold import) and the idle cost built on
// them. `BENCH_ONLY=lean npm run bench` runs just this part.
import { type BundleFigures, measureBundles, packaged } from './bundles.ts';
import { bundleWeight, type Weight } from './bundleWeight.ts';
import { costFigures, templateFacts } from './cost.ts';
import { measureQuietHour } from './quietHour.ts';
import { type Quiet, untilQuiet } from './quietMachine.ts';

export interface LeanFigures {
  readonly bundles: BundleFigures[];
  readonly weights: Weight[];
  /** How idle the machine was when the imports began to be timed, and how long that took. */
  readonly quiet: Quiet;
  readonly cost: ReturnType<typeof costFigures>;
}

const $ = (n: number): string => `$${n.toFixed(2)}`;

export async function measureLean(): Promise<LeanFigures> {
  const dir = await packaged();
  // The tiny run of the tests judges no figure, so it does not wait for a machine its other tests keep busy.
  const quiet = await untilQuiet({ maxMs: Number(process.env['BENCH_IDLE_WAIT_SECONDS'] ?? 120) * 1000 });
  const bundles = await measureBundles(Number(process.env['BENCH_IMPORT_RUNS'] ?? 7), dir);
  const weights = await Promise.all(bundles.map((b) => bundleWeight(b.function, 6)));
  const hour = await measureQuietHour(templateFacts(dir).forwarder.quietSeconds);
  const cost = costFigures(hour, bundles, dir);
  return { bundles, weights, quiet, cost };
}

export function printLean(f: LeanFigures): void {
  const idle =
    `CPUs ${Math.round(f.quiet.idleShare * 100)}% idle before timing, ` +
    `after ${(f.quiet.waitedMs / 1000).toFixed(0)} s`;
  for (const b of f.bundles) {
    const top = f.weights
      .find((w) => w.function === b.function)
      ?.top.map((t) => `${t.from} ${(t.bytes / 1024).toFixed(0)}`)
      .join(', ');
    console.log(
      `bundle ${b.function}: ${(b.bundleBytes / 1024).toFixed(0)} KiB js, ` +
        `cold import median ${b.coldImportMs.median} ms, ${b.coldImportCpuMs} ms of CPU (${idle}); heaviest KiB: ` +
        `${top}`,
    );
  }
  const c = f.cost;
  console.log(
    `idle cost, prices of ${c.prices.date} (${c.prices.region}), before free tiers: one cluster, ` +
      `dashboard off (the default) ${$(c.single.total)}/month ${JSON.stringify(c.single.items)}`,
  );
  console.log(
    `  SQS polling at the field-report rate instead: ${$(c.single.sqsPollingHigh)}; ` +
      `with the account free tiers: one cluster ${$(c.singleWithFreeTier)}`,
  );
  console.log(
    `  fleet of ten: ${$(c.fleetOfTen.total)}/month, ${$(c.fleetOfTen.perCluster)} per cluster (free tiers ` +
      `${$(c.fleetOfTen.freeTierCredit)} shared)`,
  );
  console.log(
    `  fleet of ten with one dashboard (dashboard=false on nine): ${$(c.oneDashboardPerFleet.perCluster)} per cluster`,
  );
  console.log(
    '  one deployment serving ten clusters (fleetClusters, ADR 0019) with its dashboard on, ' +
      `from this quiet hour with the forwarder at twice the memory: ${$(c.oneDeploymentForTen)} per cluster`,
  );
  const w = c.inputs.forwarder;
  console.log(
    `  forwarder: a window every ${w.everySeconds} s, a quiet one runs ${w.billedMsPerWindow} ms; ` +
      'watching always instead (320 s windows every 5 min): ' +
      `one cluster ${$(c.alwaysWatching.single.total)}/month, ` +
      `forwarder ${$(c.alwaysWatching.single.items['lambdaForwarder'] ?? 0)}`,
  );
  console.log(
    `  API requests per quiet forwarder window (plus a sweep every 5 minutes): ${JSON.stringify(f.cost.quietRequests)}`,
  );
  const { steps, forwarder, metricSeriesPerHour, alarmMetrics } = c.inputs;
  console.log(`  inputs: ${JSON.stringify({ steps, forwarder, metricSeriesPerHour, alarmMetrics })}`);
  const p = c.privateEndpoints;
  console.log(
    `  private cluster: + ${$(p.monthly)}/month for ${p.endpoints.length} interface endpoints in ${p.azs} AZs ` +
      `(${p.endpoints.join(', ')}), shared by every deployment in the VPC; or a NAT gateway ${$(p.natAlternative)}`,
  );
  console.log(`  an always-on operator pod on an existing node: ${$(c.operatorPod)}/month`);
}
