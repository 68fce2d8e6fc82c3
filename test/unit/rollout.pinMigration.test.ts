// Applications written before pinning name their charts by version (the Helm-over-OCI form). They
// read back into the plan they were written for, so the drift check sees no drift; but against a
// plan that pins those charts they are a change, so the rollout wing starts a rollout (which needs
// its approval) that writes them pinned, never a silent rewrite (SEC-9).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION } from '../../shared/api/constants.ts';
import type { GenericObject } from '../../shared/kube/kinds.ts';
import { type PlanApplication, planToApplications } from '../../shared/plans/applications.ts';
import { applicationsDigest } from '../../shared/plans/applicationsRead.ts';
import { planDigest } from '../../shared/plans/digest.ts';
import type { Plan } from '../../shared/plans/plan.ts';
import { assess } from '../../shared/rollout/rules/assess.ts';
import { inventoryOf } from '../../shared/rollout/rules/inventory.ts';
import { carriesPlan } from '../../shared/rollout/rules/state.ts';
import { sampleReleases } from '../helpers/releases.ts';

const UID = '0b6f3c1e-5d2a-4f7e-9c8b-1a2b3c4d5e6f';
const releases = sampleReleases();
const digest = planDigest(releases);
const plan = { digest, releases, runtimeUID: UID } as unknown as Plan;

/** The Applications as an earlier version wrote them: each pinned source in the by-version form, its digest in the annotation. */
function writtenBeforePinning(): GenericObject[] {
  return planToApplications(releases, { runtimeUID: UID, planDigest: digest }).map((app: PlanApplication) => {
    const release = releases.find((r) => r.name === app.metadata.name);
    const byVersion = (s: NonNullable<PlanApplication['spec']['source']>) => {
      const chart = s.name === 'chart' ? release?.chart : release?.manifests;
      return chart?.digest
        ? { name: s.name, repoURL: chart.repoURL, chart: chart.chart, targetRevision: chart.version, helm: s.helm }
        : s;
    };
    const versions = new Set<string>([ANNOTATION.chartVersion, ANNOTATION.manifestsVersion]);
    const annotations = Object.fromEntries(Object.entries(app.metadata.annotations).filter(([k]) => !versions.has(k)));
    const spec = app.spec.source
      ? { ...app.spec, source: byVersion(app.spec.source) }
      : { ...app.spec, sources: app.spec.sources?.map(byVersion) };
    return { ...app, metadata: { ...app.metadata, annotations }, spec } as unknown as GenericObject;
  });
}

test('SEC-9 Applications written before pinning are no drift, but a rollout moves each pinned release to the pinned form: a same-version Upgrade, nothing else', () => {
  const legacy = writtenBeforePinning();
  const rebuilt = applicationsDigest(legacy);
  assert.ok(rebuilt.ok);
  assert.equal(
    rebuilt.digest,
    digest,
    'they read back into the plan they were written for: the drift check sees no drift',
  );
  assert.equal(carriesPlan(legacy, { state: 'read', plan }, []), false, 'the plan is not carried as it pins');
  const pinned = planToApplications(releases, { runtimeUID: UID, planDigest: digest }) as unknown as GenericObject[];
  assert.equal(carriesPlan(pinned, { state: 'read', plan }, []), true, 'once written pinned, it is');
  const moves = assess(inventoryOf(legacy), releases, () => ({ verdict: 'safe', why: '' }));
  assert.ok(moves.ok);
  const pinnedNames = releases.filter((r) => r.chart?.digest || r.manifests?.digest).map((r) => r.name);
  assert.deepEqual(moves.steps.map((s) => s.release).sort(), [...pinnedNames].sort());
  for (const step of moves.steps) {
    assert.equal(step.action, 'Upgrade');
    assert.equal(step.fromVersion, step.toVersion, `${step.release}: the same version, only pinned`);
    assert.equal(step.valuesChanged, undefined);
  }
});
