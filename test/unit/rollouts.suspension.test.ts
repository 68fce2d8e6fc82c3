// What the emergency stop applies (ENG-2): the fields the rollout step's field manager owns, with
// their live values, so a hand edit is kept as it stands; only automated sync and the marking
// annotation change, and turning it back on gives exactly the plan's automated sync.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ANNOTATION, FIELD_MANAGER } from '../../shared/api/constants.ts';
import type { GenericObject } from '../../shared/kube/kinds.ts';
import { switchBody } from '../../shared/rollout/io/suspension.ts';

const owned = {
  'f:metadata': {
    'f:annotations': { [`f:${ANNOTATION.planDigest}`]: {} },
    'f:labels': { 'f:app.kubernetes.io/managed-by': {} },
  },
  'f:spec': {
    'f:project': {},
    'f:source': { 'f:chart': {}, 'f:targetRevision': {}, 'f:helm': { 'f:valuesObject': { 'f:a': {} } } },
    'f:syncPolicy': { 'f:automated': { 'f:prune': {}, 'f:selfHeal': {} }, 'f:syncOptions': {} },
  },
};

function live(): GenericObject {
  return {
    metadata: {
      name: 'alpha',
      uid: 'u',
      resourceVersion: '7',
      labels: { 'app.kubernetes.io/managed-by': 'aicr-operator', theirs: 'x' },
      annotations: { [ANNOTATION.planDigest]: 'sha256:ab', 'argocd.argoproj.io/refresh': 'normal' },
      managedFields: [
        { manager: FIELD_MANAGER.rollout, operation: 'Apply', fieldsV1: owned },
        {
          manager: 'kubectl-edit',
          operation: 'Update',
          fieldsV1: { 'f:spec': { 'f:source': { 'f:targetRevision': {} } } },
        },
      ],
    },
    spec: {
      project: 'default',
      source: { chart: 'alpha', targetRevision: '9.9.9 (by hand)', helm: { valuesObject: { a: 1 } } },
      syncPolicy: { automated: { prune: true, selfHeal: false }, syncOptions: ['CreateNamespace=true'] },
    },
  } as unknown as GenericObject;
}

test('ENG-2 turning automated sync off applies the owned fields as they stand, without automated, and marks the Application', () => {
  const body = switchBody(live(), 'off') as unknown as {
    metadata: { labels: unknown; annotations: unknown };
    spec: Record<string, unknown>;
  };
  assert.deepEqual(body.spec, {
    project: 'default',
    source: { chart: 'alpha', targetRevision: '9.9.9 (by hand)', helm: { valuesObject: { a: 1 } } },
    syncPolicy: { syncOptions: ['CreateNamespace=true'] },
  });
  assert.deepEqual(
    body.metadata.labels,
    { 'app.kubernetes.io/managed-by': 'aicr-operator' },
    'labels it does not own are not taken',
  );
  assert.deepEqual(body.metadata.annotations, {
    [ANNOTATION.planDigest]: 'sha256:ab',
    [ANNOTATION.engineSuspended]: 'true',
  });
});

test("ENG-2 turning it back on gives exactly the plan's automated sync and drops the mark", () => {
  const app = live();
  const body = switchBody(app, 'on') as unknown as {
    metadata: { annotations: Record<string, string> };
    spec: { syncPolicy: unknown };
  };
  assert.deepEqual(body.spec.syncPolicy, {
    syncOptions: ['CreateNamespace=true'],
    automated: { prune: true, selfHeal: true },
  });
  assert.equal(body.metadata.annotations[ANNOTATION.engineSuspended], undefined);
});
