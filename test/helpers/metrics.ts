// Reading the control plane's metric lines (embedded metric format) back from captured logs.
import assert from 'node:assert/strict';
import { METRICS_NAMESPACE, type MetricDef } from '../../shared/observability/metrics.ts';

export type Line = Record<string, unknown>;
export type Emf = { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] };

/** The metric lines carrying `def`, each with its EMF directive. */
export function metricLines(lines: readonly Line[], def: MetricDef): (Line & { emf: Emf })[] {
  return lines
    .filter((l) => l['message'] === 'metric' && def.name in l)
    .map((l) => ({ ...l, emf: (l['_aws'] as { CloudWatchMetrics: Emf[] }).CloudWatchMetrics[0] as Emf }));
}

/** The line declares the metric with its unit under every dimension set the module lists, `service` first. */
export function assertDeclared(line: Line & { emf: Emf }, def: MetricDef): void {
  assert.equal(line.emf.Namespace, METRICS_NAMESPACE);
  assert.ok(
    line.emf.Metrics.some((m) => m.Name === def.name && m.Unit === def.unit),
    `${def.name} in ${def.unit}`,
  );
  for (const set of def.sets)
    assert.ok(
      line.emf.Dimensions.some((d) => JSON.stringify(d) === JSON.stringify(['service', ...set])),
      `dimension set service,${set.join(',')}`,
    );
  assert.equal(line['service'], 'aicr-control-plane');
  assert.equal(typeof line[def.name], 'number');
  for (const dim of def.sets.flat()) assert.equal(typeof line[dim], 'string', `dimension ${dim} has a value`);
}
