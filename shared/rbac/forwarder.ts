// What the forwarder's own identity may do: watch every kind a step wakes on, keep its
// checkpoint ConfigMap, and sweep the Jobs of runtimes that no longer exist.
import { STAGE_NAMESPACE } from '../aicr/stages.ts';
import { FORWARDER_CHECKPOINT } from '../api/constants.ts';
import { checkpointName, watchedBy } from '../forwarder/watched.ts';
import { apiGroupOf } from '../kube/kinds.ts';
import type { KubeRule } from '../api/kubeRule.ts';
import { STEP_TABLE, type StepRow } from '../steps/table.ts';

/** A watch by name (`metadata.name=<name>`) is granted on that name only. */
function namedBy(fieldSelector: string | undefined): { resourceNames?: string[] } {
  const name = /^metadata\.name=([^,]+)$/.exec(fieldSelector ?? '')?.[1];
  return name ? { resourceNames: [name] } : {};
}

export function forwarderRules(table: readonly StepRow[] = STEP_TABLE): KubeRule[] {
  const kinds = watchedBy(table);
  // One rule per kind and namespace, however many watches look at it.
  const seen = new Set<string>();
  const distinct = kinds.filter((w) => {
    const key = `${w.kind.plural}/${w.selection?.namespace ?? ''}/${w.selection?.fieldSelector ?? ''}`;
    return seen.has(key) ? false : (seen.add(key), true);
  });
  const watched = distinct.map((w): KubeRule => ({
    apiGroups: [apiGroupOf(w.kind)],
    resources: [w.kind.plural],
    verbs: ['get', 'list', 'watch'],
    ...(w.selection?.namespace ? { namespace: w.selection.namespace } : {}),
    ...namedBy(w.selection?.fieldSelector),
    why: `watches ${w.kind.plural} for the steps they wake`,
  }));
  const { namespace } = FORWARDER_CHECKPOINT;
  return [
    ...watched,
    // Create cannot be limited to a name, so it is granted in the checkpoint's namespace only.
    { apiGroups: [''], resources: ['configmaps'], verbs: ['create'], namespace, why: 'creates its checkpoint' },
    {
      apiGroups: [''],
      resources: ['configmaps'],
      verbs: ['get', 'update'],
      namespace,
      resourceNames: kinds.map(checkpointName),
      why: 'reads and moves its checkpoints, one per watched kind',
    },
    ...[...new Set(Object.values(STAGE_NAMESPACE))].map((ns): KubeRule => ({
      apiGroups: ['batch'],
      resources: ['jobs'],
      verbs: ['list', 'delete'],
      namespace: ns,
      why: 'sweeps AICR Jobs of runtimes that no longer exist, once stale (KROP-3)',
    })),
  ];
}
