// The control plane's configuration in the cluster: what the chart's values say about AICR runs
// and the registry, rendered into one ConfigMap (CONFIGURATION in shared/api/constants.ts).
// Every object is strict, so a misspelt key is refused rather than silently ignored.
import * as z from 'zod';
import { ARGOCD } from '../api/constants.ts';
import { AICR_VERSION } from '../api/names.ts';
import { GO_DURATION_PATTERN, parseDuration } from '../api/duration.ts';
import { SCHEDULE_MESSAGE, SCHEDULE_PATTERN, isTimeZone } from '../api/maintenance.ts';
import { DEFAULT_CLUSTER_RESOURCES, DEFAULT_RELEASE_NAMESPACES, NAMESPACE_ENTRY } from '../api/releaseNamespaces.ts';

/** Plans kept besides the ones in use: enough to pin back a few resolutions. */
export const DEFAULT_PLANS_KEPT = 5;
/** Rollouts kept as the record of who approved what: the newest, of this runtime and of those before it. */
export const DEFAULT_ROLLOUTS_KEPT = 20;
/** The drift check's periodic look, besides the Application and plan changes that wake it. */
export const DEFAULT_DRIFT_CHECK_INTERVAL = '5m';

const version = z.string().regex(AICR_VERSION.pattern, { error: AICR_VERSION.message });
const imageReference = z
  .string()
  .min(1)
  .max(512)
  .regex(/^[a-z0-9][a-z0-9.:_/-]*(?::[A-Za-z0-9_.-]+)?(?:@sha256:[a-f0-9]{64})?$/, {
    error: 'must be an image reference such as ghcr.io/nvidia/aicr@sha256:<digest>',
  });

/** An image reference that names its bytes; the digest is its first group. */
export const DIGEST_PINNED = /@(sha256:[a-f0-9]{64})$/;

export const TolerationSchema = z.strictObject({
  key: z.string().max(316).optional(),
  operator: z.enum(['Exists', 'Equal']).optional(),
  value: z.string().max(63).optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.int().optional(),
});
export type Toleration = z.output<typeof TolerationSchema>;

const MAX_SYNC_WINDOWS = 16;

/** One AppProject sync window as Argo CD v3.5.1 reads it; durations in whole h, m and s, which the steps read. */
const SyncWindowValueSchema = z.strictObject({
  kind: z.enum(['allow', 'deny']),
  schedule: z.string().regex(SCHEDULE_PATTERN, { error: `schedule ${SCHEDULE_MESSAGE}` }),
  duration: z
    .string()
    .regex(GO_DURATION_PATTERN, { error: 'duration must be whole hours, minutes and seconds such as 1h30m' }),
  applications: z.array(z.string().min(1).max(253)).max(64).optional(),
  namespaces: z.array(z.string().min(1).max(253)).max(64).optional(),
  clusters: z.array(z.string().min(1).max(512)).max(64).optional(),
  timeZone: z
    .string()
    .max(64)
    .refine(isTimeZone, { error: 'timeZone must be an IANA time zone such as UTC or Europe/Berlin' })
    .optional(),
  manualSync: z.boolean().optional(),
  andOperator: z.boolean().optional(),
  description: z.string().max(255).optional(),
});

export const ConfigurationSchema = z.strictObject({
  aicr: z
    .strictObject({
      /** AICR version → the image the control plane runs it with (by digest in production). */
      versions: z.record(version, imageReference).default({}),
      jobs: z
        .strictObject({
          nodeSelector: z.record(z.string().max(316), z.string().max(63)).default({}),
          tolerations: z.array(TolerationSchema).max(32).default([]),
        })
        .prefault({}),
      /** Validator image at the tag AICR names → the pinned reference to run instead. */
      validatorImages: z.record(z.string().max(512), imageReference).default({}),
      /**
       * Required: every image above carries a digest, so what runs is what was pinned (SEC-5).
       * The chart's values default to Required; Optional is for local mode and the tests, whose
       * images are built on the spot.
       */
      digests: z.enum(['Required', 'Optional']).default('Required'),
    })
    .superRefine((aicr, ctx) => {
      if (aicr.digests !== 'Required') return;
      const pinned = [
        ...Object.entries(aicr.versions).map(([k, v]) => ['versions', k, v] as const),
        ...Object.entries(aicr.validatorImages).map(([k, v]) => ['validatorImages', k, v] as const),
      ];
      for (const [field, key, image] of pinned) {
        if (!DIGEST_PINNED.test(image))
          ctx.addIssue({
            code: 'custom',
            path: [field, key],
            message:
              `${image} carries no digest; pin it as <image>@sha256:<digest> (aicr.digests is Required outside ` +
              'local mode and the tests)',
          });
      }
    })
    .prefault({}),
  registry: z
    .strictObject({
      /** Where bundles are pushed: <host>/<prefix>, no scheme. */
      repository: z
        .string()
        .max(255)
        .regex(/^$|^[a-z0-9.-]+(:[0-9]+)?(\/[a-z0-9._-]+)*$/, {
          error:
            'must be <host>[:port]/<prefix> without a scheme, ' +
            'such as 123456789012.dkr.ecr.us-east-1.amazonaws.com/aicr',
        })
        .default(''),
      /** Talk plain HTTP to the registry (a registry on loopback or inside the cluster). */
      plainHTTP: z.boolean().default(false),
      auth: z
        .strictObject({
          mode: z.enum(['static', 'aws']).default('static'),
          /** Docker-config Secret in aicr-system (and the Job and validation namespaces). */
          staticSecretRef: z.string().max(253).default(''),
        })
        .prefault({}),
    })
    .prefault({}),
  argocd: z
    .strictObject({
      /**
       * The AppProject the owned Applications belong to; it must allow the release namespaces and
       * the registry. Admission reads it as a CEL string, so it is a DNS subdomain name.
       */
      project: z
        .string()
        .min(1)
        .max(253)
        .regex(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { error: 'must be an AppProject name (a DNS subdomain name)' })
        .default(ARGOCD.project),
      /**
       * Where releases may put objects: the AppProject's destinations, what admission lets the
       * control plane's Applications name, and what resolution accepts of a plan (docs/security.md).
       */
      namespaces: z
        .array(
          z.string().max(NAMESPACE_ENTRY.maxLength).regex(NAMESPACE_ENTRY.pattern, { error: NAMESPACE_ENTRY.message }),
        )
        .min(1)
        .max(100)
        .default([...DEFAULT_RELEASE_NAMESPACES]),
      /** Whether the chart ships that AppProject (docs/deploy.md); false when the operator keeps one of their own. */
      createProject: z.boolean().default(true),
      /**
       * The cluster-scoped kinds that AppProject lets releases create; the chart's default says why
       * each is there (infra/chart/values.yaml). Argo CD reads it; the control plane only keeps it strict.
       */
      clusterResources: z
        .array(
          z.strictObject({
            group: z
              .string()
              .max(253)
              .regex(/^$|^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { error: 'must be an API group' }),
            kind: z
              .string()
              .min(1)
              .max(63)
              .regex(/^[A-Za-z][A-Za-z0-9]*$/, { error: 'must be a kind' }),
          }),
        )
        .max(100)
        .default([...DEFAULT_CLUSTER_RESOURCES]),
      /**
       * Where releases deploy: a cluster registered in Argo CD by name when `name` is set (the EKS
       * Argo CD capability), else the API server `server`.
       */
      destination: z
        .strictObject({
          server: z
            .string()
            .min(1)
            .max(512)
            .regex(/^https:\/\/[^\s'"\\]+$/, { error: 'must be an https:// URL of an API server' })
            .default('https://kubernetes.default.svc'),
          name: z
            .string()
            .max(253)
            .regex(/^$|^[A-Za-z0-9][-A-Za-z0-9_.@:/]*$/, {
              error: 'must be the name of a cluster registered in Argo CD',
            })
            .default(''),
        })
        .prefault({}),
      /**
       * self-managed: Argo CD's application controller runs in the cluster, and its workload
       * tells whether it is up. managed: the EKS Argo CD capability, with no workload to read.
       */
      mode: z.enum(['self-managed', 'managed']).default('self-managed'),
      /**
       * Argo CD sync windows of the AppProject the chart ships (createProject), in Argo CD's own
       * form; the rollout steps wait while they hold the owned Applications (WIN-3, docs/rollouts.md).
       */
      syncWindows: z.array(SyncWindowValueSchema).max(MAX_SYNC_WINDOWS).default([]),
    })
    .prefault({}),
  plans: z
    .strictObject({
      /** How many plans to keep besides the active, target, candidate and pinned ones (docs/plans.md). */
      keep: z.int().min(1).max(100).default(DEFAULT_PLANS_KEPT),
    })
    .prefault({}),
  rollouts: z
    .strictObject({
      /** How many rollouts to keep, newest first; one that has not ended is never removed (docs/deletion.md). */
      keep: z.int().min(1).max(1000).default(DEFAULT_ROLLOUTS_KEPT),
    })
    .prefault({}),
  drift: z
    .strictObject({
      /** How often the drift check looks between the changes that wake it (docs/drift.md). */
      checkInterval: z
        .string()
        .refine((text) => (parseDuration(text) ?? 0) >= 1_000, {
          error: 'must be a duration of at least 1s, such as 30s, 5m or 1h',
        })
        .default(DEFAULT_DRIFT_CHECK_INTERVAL),
    })
    .prefault({}),
});
export type Configuration = z.output<typeof ConfigurationSchema>;
