// A limit on the control plane's own writes of one of its kinds: a policy without a parameter, so
// it holds whatever ConfigMap or runtime is missing, matched only for the control plane's
// identities, and its binding. The runtime policy (runtimeAdmission.ts) and the record policy
// (recordAdmission.ts) are two of them.
import { API_GROUP, API_VERSION } from '../api/constants.ts';
import { type Check } from './personChecks.ts';
import { admissionBinding, admissionPolicy, renderAdmissionFile } from './admissionDocuments.ts';
import { fromTheControlPlane } from './applicationAdmission.ts';

export interface OwnKindLimit {
  readonly name: string;
  readonly plural: string;
  readonly operations: readonly ('CREATE' | 'UPDATE' | 'DELETE')[];
  readonly validations: readonly Check[];
  /** The generated file's header, without comment marks. */
  readonly header: readonly string[];
}

export function renderOwnKindLimit(limit: OwnKindLimit): string {
  const policy = admissionPolicy(limit.name, {
    matchConstraints: {
      resourceRules: [
        {
          apiGroups: [API_GROUP],
          apiVersions: [API_VERSION],
          operations: [...limit.operations],
          resources: [limit.plural],
        },
      ],
    },
    matchConditions: [{ name: 'from-the-control-plane', expression: fromTheControlPlane() }],
    validations: limit.validations,
  });
  return renderAdmissionFile(limit.header, [policy, admissionBinding(limit.name)]);
}
