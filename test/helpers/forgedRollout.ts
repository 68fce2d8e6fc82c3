// A rollout's control-plane fields as another version of the control plane could have left them
// (a step order, a release the plan lacks): no identity may change them after creation (SEC-7), so
// the test does what only a cluster admin can, lifting the approval policy's binding for the one
// write and putting it back before it returns.
import { APPROVAL, KINDS } from '../../shared/api/constants.ts';
import { kubectlApply } from '../../harness/kubectlApply.ts';
import { kubectl, waitFor } from '../../harness/runtime.ts';

const BINDING = 'validatingadmissionpolicybinding';

const accepted = (args: readonly string[]): Promise<true | undefined> =>
  kubectl(...args).then(
    () => true as const,
    () => undefined,
  );

export async function forgeRolloutSpec(name: string, spec: Record<string, unknown>): Promise<void> {
  const saved = JSON.parse(await kubectl('get', BINDING, APPROVAL.admission, '-o', 'json')) as {
    metadata: Record<string, unknown>;
    spec: unknown;
  };
  const patch = ['patch', KINDS.runtimeRollout.plural, name, '--type=merge', '-p', JSON.stringify({ spec })];
  await kubectl('delete', BINDING, APPROVAL.admission);
  try {
    // The API server stops enforcing once its informer sees the binding go.
    await waitFor('the approval policy lifted for the forged write', () => accepted(patch), 20_000);
  } finally {
    await kubectlApply({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: saved.metadata['name'], annotations: saved.metadata['annotations'] ?? {} },
      spec: saved.spec,
    });
    const edit = ['patch', KINDS.runtimeRollout.plural, name, '--type=merge', '--dry-run=server'];
    await waitFor(
      'the approval policy enforced again',
      async () =>
        (await accepted([...edit, '-p', '{"spec":{"deadline":"2000-01-01T00:00:00Z"}}'])) ? undefined : true,
      20_000,
    );
  }
}
