// The identity AICR's own Jobs run as in aicr-jobs. `aicr recipe -o cm://…` writes its output
// with a server-side apply and `aicr bundle -r cm://…` reads it back; nothing else is allowed.
import { AICR_RUNNER_SERVICE_ACCOUNT, NAMESPACES } from '../api/constants.ts';
import type { Identity } from './render.ts';

export const AICR_RUNNER_IDENTITY: Identity = {
  name: AICR_RUNNER_SERVICE_ACCOUNT,
  serviceAccount: { namespace: NAMESPACES.jobs, name: AICR_RUNNER_SERVICE_ACCOUNT },
  rules: [
    {
      apiGroups: [''],
      resources: ['configmaps'],
      verbs: ['get', 'create', 'patch'],
      namespace: NAMESPACES.jobs,
      why: 'AICR writes a recipe run’s output ConfigMap and the render run reads it',
    },
  ],
};
