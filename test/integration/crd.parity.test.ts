// CRD/zod parity: the API server (OpenAPI schema + CEL rules, generated from zod) and the
// control plane's zod schemas accept exactly the same specs. Generated specs, valid and near
// misses at every bound, go to both; a spec one accepts and the other refuses fails the test
// with the spec, the API server's message and zod's issues. An accepted spec must also come
// out the same: what the API server would store (defaulted, pruned) is what zod parses it to.
// Server-side dry run stores nothing.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ClusterRuntimeSchema } from '../../shared/api/clusterRuntime.ts';
import { RuntimeRolloutSchema } from '../../shared/api/runtimeRollout.ts';
import { dryRunner, type DryRunner, type Kind } from '../helpers/dryRun.ts';
import { clusterRuntimeSpec, runtimeName, runtimeRolloutSpec } from '../helpers/specArbitraries.ts';
import { deleteRuntime, ensureCrds } from '../../harness/runtime.ts';

let api: DryRunner;

before(async () => {
  await ensureCrds();
  // A stored runtime would turn every dry-run create into 409 AlreadyExists.
  await deleteRuntime();
  api = dryRunner();
});

interface ZodVerdict {
  /** zod's issues, as "path: message"; none when it accepts. */
  readonly issues: string[];
  /** The spec as the control plane reads it (defaults applied) when it accepts. */
  readonly spec?: unknown;
}

function zodVerdict(kind: Kind, name: string, spec: unknown): ZodVerdict {
  const parsed =
    kind === 'clusterRuntime'
      ? ClusterRuntimeSchema.safeParse({ metadata: { name }, spec })
      : RuntimeRolloutSchema.safeParse({ spec });
  return parsed.success
    ? { issues: [], spec: parsed.data.spec }
    : { issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`) };
}

/** Counts verdicts, so the test also proves it saw both acceptances and refusals. */
const tally = (): { accepted: number; refused: number } => ({ accepted: 0, refused: 0 });

async function assertSameVerdict(
  seen: { accepted: number; refused: number },
  kind: Kind,
  name: string,
  spec: unknown,
): Promise<void> {
  const server = await api.verdict(kind, name, spec);
  const { issues, spec: read } = zodVerdict(kind, name, spec);
  const detail = JSON.stringify({
    spec,
    apiServer: server.message || 'accepted',
    zod: issues.length ? issues : 'accepted',
  });
  assert.equal(server.accepted, issues.length === 0, `API server and zod disagree: ${detail}`);
  // Both also read an accepted spec alike: the API server's defaults and pruning are zod's.
  if (server.accepted) assert.deepEqual(server.stored, read, `API server stores what zod does not read: ${detail}`);
  if (server.accepted) seen.accepted++;
  else seen.refused++;
}

test('CRD/zod parity: no generated ClusterRuntime is accepted by the API server and refused by zod, or the other way round', async () => {
  const seen = tally();
  await fc.assert(
    fc.asyncProperty(runtimeName, clusterRuntimeSpec, (name, spec) =>
      assertSameVerdict(seen, 'clusterRuntime', name, spec),
    ),
    { numRuns: 300 },
  );
  assert.ok(seen.accepted >= 30 && seen.refused >= 30, `too one-sided to prove parity: ${JSON.stringify(seen)}`);
});

test('CRD/zod parity: no generated RuntimeRollout is accepted by the API server and refused by zod, or the other way round', async () => {
  const seen = tally();
  await fc.assert(
    fc.asyncProperty(runtimeRolloutSpec, (spec) => assertSameVerdict(seen, 'runtimeRollout', 'parity', spec)),
    { numRuns: 150 },
  );
  assert.ok(seen.accepted >= 15 && seen.refused >= 15, `too one-sided to prove parity: ${JSON.stringify(seen)}`);
});
