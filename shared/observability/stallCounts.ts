// The stall alarms' input: how many runtimes stand in each stall class, counted from a list of
// every runtime the forwarder makes each window (and local mode on its sweeper's timer). A
// runtime nobody looks at again stays counted, so one runtime's change can never clear another's
// page, and the line names the runtimes behind each count (plain fields, never dimensions).
// Sent while some count is above 0, and once more when they all fall to 0, so a healthy
// deployment sends no stall series at all; the alarms read missing data as no stall.
// A stall that retries by itself but has lasted LASTING_STALL_MS (Argo CD down for half an hour)
// counts as needing a person too, so the default stalled-needs-person alarm pages every stall
// class (STL-2) without an alarm metric more.
import { DOMAIN_CONDITIONS } from '../api/constants.ts';
import type { RuntimeObject } from '../kube/kinds.ts';
import type { Logger } from './log.ts';
import { METRIC, type MetricDef, type MetricPoint, STALL_GAUGES, stallGaugeOf } from './metrics.ts';

/** How long a stall that retries by itself lasts before a person is paged for it. */
export const LASTING_STALL_MS = 30 * 60_000;

type CountedCondition = { readonly reason: string; readonly lastTransitionTime?: string | undefined };

/** A stall that retries by itself (counted as such) that has lasted long enough to page. */
function lasting(gauge: MetricDef, c: CountedCondition, now: Date): boolean {
  if (gauge.name !== METRIC.stalledRetrying.name) return false;
  const since = Date.parse(c.lastTransitionTime ?? '');
  return !Number.isNaN(since) && now.getTime() - since >= LASTING_STALL_MS;
}

export interface CountedRuntime {
  /** The runtime's name, or `<cluster>/<name>` in a further cluster of a fleet. */
  readonly name: string;
  readonly runtime: RuntimeObject;
}

/** Which stall gauge each runtime counts toward (at most one per gauge), with the reason that put it there. */
function stalledBy(runtimes: readonly CountedRuntime[], now: Date): Map<string, string[]> {
  const by = new Map<string, string[]>(STALL_GAUGES.map((g) => [g.metric.name, []]));
  const count = (gauge: string, counted: Set<string>, entry: string): void => {
    if (counted.has(gauge)) return;
    counted.add(gauge);
    by.get(gauge)?.push(entry);
  };
  for (const { name, runtime } of runtimes) {
    const counted = new Set<string>();
    for (const c of runtime.status?.conditions ?? []) {
      if (!(DOMAIN_CONDITIONS as readonly string[]).includes(c.type) || c.status === 'True') continue;
      const gauge = stallGaugeOf(c.reason);
      if (!gauge) continue;
      count(gauge.name, counted, `${name} (${c.reason})`);
      if (lasting(gauge, c, now))
        count(METRIC.stalledNeedsPerson.name, counted, `${name} (${c.reason} since ${c.lastTransitionTime ?? ''})`);
    }
  }
  return by;
}

/** One line: every class's count, and the runtimes behind each non-zero count. */
export function stallCounts(runtimes: readonly CountedRuntime[], now: Date = new Date()): MetricPoint {
  const by = stalledBy(runtimes, now);
  const [first, ...rest] = STALL_GAUGES.map((g) => ({
    metric: g.metric as MetricDef,
    value: by.get(g.metric.name)?.length ?? 0,
  }));
  const named = [...by.entries()]
    .filter(([, names]) => names.length > 0)
    .map(([gauge, names]) => `${gauge}: ${names.join(', ')}`);
  return {
    metric: first?.metric ?? STALL_GAUGES[0].metric,
    value: first?.value ?? 0,
    more: rest,
    ...(named.length > 0 ? { metadata: { runtimes: named.join('; ') } } : {}),
  };
}

function anyStalled(p: MetricPoint): boolean {
  return p.value > 0 || (p.more ?? []).some((m) => m.value > 0);
}

/** Sends the counts when something is stalled, and once when it all cleared; remembers what it sent. */
export class StallReporter {
  private readonly log: Logger;
  private stalledBefore = false;

  constructor(log: Logger) {
    this.log = log;
  }

  report(runtimes: readonly CountedRuntime[], now: Date = new Date()): MetricPoint | undefined {
    const point = stallCounts(runtimes, now);
    const stalled = anyStalled(point);
    if (!stalled && !this.stalledBefore) return undefined;
    this.stalledBefore = stalled;
    this.log.metric(point);
    return point;
  }
}
