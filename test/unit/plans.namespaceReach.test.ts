// Resolution's check of where a plan's releases would put objects (shared/plans/namespaceReach.ts):
// each release's namespace and those its raw manifests name, against argocd.namespaces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { manifestNamespaces, namespaceOutside } from '../../shared/plans/namespaceReach.ts';
import { DEFAULT_RELEASE_NAMESPACES, namespaceAllowed } from '../../shared/api/releaseNamespaces.ts';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import type { Release } from '../../shared/plans/release.ts';

const release = (name: string, namespace: string): Release => ({
  name,
  namespace,
  order: 0,
  chart: { repoURL: 'registry.example/aicr', chart: name, version: '1.0.0' },
  values: {},
  dependsOn: [],
  manual: false,
  steps: [],
});
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

test('SEC-4 an entry of argocd.namespaces is a name, or a prefix ending in *', () => {
  assert.equal(namespaceAllowed('gpu-operator', ['gpu-operator']), true);
  assert.equal(namespaceAllowed('gpu-operator-x', ['gpu-operator']), false);
  assert.equal(namespaceAllowed('team-a', ['team-*']), true);
  assert.equal(namespaceAllowed('teams', ['team-*']), false);
  const refused = ConfigurationSchema.safeParse({ argocd: { namespaces: ["gpu'operator"] } });
  assert.equal(refused.success, false);
  assert.deepEqual(
    refused.error?.issues.map((i) => [i.path.join('.'), i.message]),
    [['argocd.namespaces.0', "must be a namespace name, or a prefix of one ending in '*' (such as team-*)"]],
  );
  assert.deepEqual(ConfigurationSchema.parse({}).argocd.namespaces, [...DEFAULT_RELEASE_NAMESPACES]);
});

test('SEC-4 a raw manifest names the namespaces of its metadata and of the Namespaces it creates; template expressions other than the release namespace say nothing', () => {
  const text = [
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: kube-system\ndata:\n  namespace: not-this',
    'apiVersion: v1\nkind: Service\nmetadata:\n  name: b\n  namespace: {{ .Release.Namespace }}',
    'apiVersion: v1\nkind: Service\nmetadata:\n  name: c\n  namespace: {{ .Values.elsewhere }}',
    'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "made-here"',
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\nspec:\n  namespace: nor-this',
  ].join('\n---\n');
  assert.deepEqual(manifestNamespaces(text, 'gpu-operator').sort(), ['gpu-operator', 'kube-system', 'made-here']);
});

test('SEC-4 resolution finds the first release, or raw manifest, reaching outside argocd.namespaces', () => {
  const allowed = ['gpu-operator', 'kube-system', 'ns-*'];
  const files = new Map([
    ['gpu-operator/manifests/dcgm.yaml', bytes('kind: ConfigMap\nmetadata:\n  name: x\n  namespace: kube-system\n')],
    ['network/manifests/extra.yaml', bytes('kind: ConfigMap\nmetadata:\n  name: y\n  namespace: elsewhere\n')],
  ]);
  assert.equal(
    namespaceOutside([release('gpu-operator', 'gpu-operator'), release('a', 'ns-a')], files, allowed),
    undefined,
  );
  assert.deepEqual(
    namespaceOutside([release('gpu-operator', 'gpu-operator'), release('x', 'monitoring')], files, allowed),
    {
      release: 'x',
      namespace: 'monitoring',
    },
  );
  assert.deepEqual(namespaceOutside([release('network', 'ns-network')], files, allowed), {
    release: 'network',
    namespace: 'elsewhere',
    file: 'network/manifests/extra.yaml',
  });
});
