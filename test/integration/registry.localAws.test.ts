// Local mode in registry.auth.mode aws against moto (AICR_LOCAL_REGISTRY_AUTH=aws npm start),
// end to end: every step runs, the control plane mints its ECR tokens from moto, the
// token-refresh step writes Argo CD's registry Secret, and Argo CD fetches every
// chart of the plan with that token until the runtime is Ready.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  ARGOCD_REGISTRY_SECRET,
  CONDITION,
  FIELD_MANAGER,
  LABEL,
  MANAGED_BY_VALUE,
  NAMESPACES,
} from '../../shared/api/constants.ts';
import { KIND } from '../../shared/kube/kinds.ts';
import { fieldAt } from '../../shared/kube/fieldPath.ts';
import { startCapturedControlPlane, stepKube } from '../../harness/controlPlane.ts';
import { awsRegistryMode, motoEcrCredential } from '../helpers/ecrRegistry.ts';
import type { Knob } from '../helpers/knobs.ts';
import { kubectlAicr } from '../../harness/plugin.ts';
import { SCALED_TIMINGS } from '../helpers/resolved.ts';
import { clearApplications, released } from '../../harness/rollouts.ts';
import { condition, deleteRuntime, ensureCrds, getRuntime, kubectl, waitFor } from '../../harness/runtime.ts';

let cp: ReturnType<typeof startCapturedControlPlane> | undefined;
let mode: Knob | undefined;

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
  mode = await awsRegistryMode();
  cp = startCapturedControlPlane({ timings: { ...SCALED_TIMINGS, engineRecheckMs: 2_000 } });
});

after(async () => {
  cp?.stop();
  await cp?.running;
  await deleteRuntime();
  await kubectl('delete', 'runtimerollouts', '--all');
  await clearApplications();
  await mode?.undo();
});

test('REG-4 local mode in aws mode against moto: Argo CD fetches every chart with the token the token-refresh step wrote, and the runtime becomes Ready', async () => {
  await kubectl('apply', '-f', 'examples/clusterruntime.yaml');
  // Deployment validation has its own tests (validation.test.ts); this flow ends at the rollout's last step.
  await kubectl(
    'patch',
    'clusterruntime',
    'cluster',
    '--type=merge',
    '-p',
    '{"spec":{"validation":{"deployment":"Disabled"}}}',
  );
  const waiting = await released('AwaitingApproval', (reason) => reason === 'AwaitingApproval', 240_000);
  const name = /rollout (aicr-rollout-[0-9a-z-]+)/.exec(waiting.message)?.[1] ?? '';
  const approved = await kubectlAicr(['approve', name]);
  assert.equal(approved.code, 0, approved.stderr);
  await released('Released=True', (reason) => reason === 'Released', 180_000);
  await waitFor(
    'Ready=True',
    async () => (condition(await getRuntime(), CONDITION.ready)?.status === 'True' ? true : undefined),
    30_000,
  );
  const secret = JSON.parse(
    await kubectl(
      'get',
      'secret',
      ARGOCD_REGISTRY_SECRET.name,
      '-n',
      ARGOCD_REGISTRY_SECRET.namespace,
      '-o',
      'json',
      '--show-managed-fields',
    ),
  ) as { metadata: { managedFields?: { manager: string }[] }; data: Record<string, string> };
  assert.ok(
    secret.metadata.managedFields?.some((m) => m.manager === FIELD_MANAGER.tokenRefresh),
    'written by the token-refresh step',
  );
  assert.equal(
    Buffer.from(secret.data['password'] ?? '', 'base64').toString('utf8'),
    (await motoEcrCredential()).password,
  );
  const apps = (
    await stepKube('rollout').list(KIND.application, {
      namespace: NAMESPACES.argocd,
      labelSelector: `${LABEL.managedBy}=${MANAGED_BY_VALUE}`,
    })
  ).items;
  assert.ok(apps.length > 0);
  for (const app of apps)
    assert.deepEqual(
      [fieldAt(app, 'status.sync.status'), fieldAt(app, 'status.health.status')],
      ['Synced', 'Healthy'],
      `${app.metadata.name} is synced and healthy`,
    );
});
