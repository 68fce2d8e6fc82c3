// SEC-8 for the one parameter that may legitimately be absent: ClusterRuntime `cluster`, which the
// Application ownership policy reads. With no runtime (before the first, after an Orphan deletion)
// that policy lets writes through, since Deny would stop Argo CD's own writes to every Application;
// what reads no parameter still holds the control plane's identities to the configured AppProject,
// argocd.namespaces and the configured cluster, and Argo CD keeps writing its Applications.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ARGOCD, NAMESPACES } from '../../shared/api/constants.ts';
import { applyConfiguration } from '../../harness/configuration.ts';
import { deleteRuntime, ensureCrds, kubectl, waitFor } from '../../harness/runtime.ts';
import { attackApplication } from '../helpers/attackApplication.ts';
import { allowed, createAs, refused, stepIdentity } from '../helpers/impersonate.ts';
import { appReaches } from '../helpers/argocd.ts';

const ROLLOUT = stepIdentity('rollout');
const DRIFT = stepIdentity('drift-check');
const ORPHANED_UID = '00000000-0000-4000-8000-0000000000aa';
const SOMEONE_ELSES = 'sec8-no-runtime-someone-elses';

before(async () => {
  await ensureCrds();
  await deleteRuntime();
  await applyConfiguration();
  // A policy the chart has just installed is enforced once the API server has loaded it.
  await waitFor(
    'the Application project policy to be enforced',
    async () =>
      (await createAs(ROLLOUT, attackApplication('sec8-probe', { uid: ORPHANED_UID, project: ARGOCD.defaultProject })))
        .ok
        ? undefined
        : true,
    30_000,
  );
});

after(async () => {
  await kubectl('delete', 'application', SOMEONE_ELSES, '-n', NAMESPACES.argocd, '--ignore-not-found', '--wait=false');
});

test("SEC-8 SEC-3 with no runtime the ownership policy's parameter is missing, yet the control plane's Application writes keep to the project, argocd.namespaces and the cluster, and Argo CD still writes its own", async () => {
  assert.equal(await kubectl('get', 'clusterruntime', '--ignore-not-found', '-o', 'name'), '', 'no runtime');
  for (const who of [ROLLOUT, DRIFT]) {
    refused(
      await createAs(who, attackApplication('sec8-default', { uid: ORPHANED_UID, project: ARGOCD.defaultProject })),
      /names AppProject default, not aicr/,
      `${who.user} writing into project default with no runtime`,
    );
    refused(
      await createAs(
        who,
        attackApplication('sec8-wide', {
          uid: ORPHANED_UID,
          destination: { server: ARGOCD.inClusterServer, namespace: 'kube-public' },
        }),
      ),
      /deploys to namespace kube-public, which is not listed/,
      `${who.user} deploying outside argocd.namespaces with no runtime`,
    );
    refused(
      await createAs(who, attackApplication('sec8-unowned', { uid: '', managed: false })),
      /must carry|is not one the control plane wrote|belongs to no runtime/,
      `${who.user} writing an Application that carries no runtime's UID, with no runtime`,
    );
    // The documented gap (docs/security.md, SEC-8): ownership itself is not checked without a runtime.
    allowed(
      await createAs(who, attackApplication('sec8-orphan', { uid: ORPHANED_UID })),
      `${who.user} writing an Application of a runtime that is gone, in bounds`,
    );
  }
  allowed(
    await createAs(
      { user: 'admin', groups: ['system:masters'] },
      attackApplication(SOMEONE_ELSES, {
        uid: '',
        managed: false,
        project: ARGOCD.defaultProject,
        destination: { server: ARGOCD.inClusterServer, namespace: 'sec8-elsewhere' },
      }),
      false,
    ),
    "a person's Application",
  );
  await appReaches(SOMEONE_ELSES, 'reported on by Argo CD', (a) => a?.status?.reconciledAt !== undefined, 60_000);
});
