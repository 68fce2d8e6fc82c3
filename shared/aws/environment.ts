// A deployed function's settings, parsed once at start from its environment (not the cluster-side
// configuration, which is shared/configuration/). A misspelt AICR_* variable fails start-up with a
// message naming it. Queue settings are derived from the step table, so a new step's queue is a
// known setting at once.
import { CREATE_REPOSITORIES_SETTING } from '../registry/ecrRepositories.ts';
import { REGISTRY_PREFIX_SETTING } from '../registry/prefix.ts';
import { STEP_TIMING_METRICS_SETTING } from '../observability/metrics.ts';
import { EKS_CLUSTER_NAME } from '../api/names.ts';
import * as z from 'zod';
import { QUEUE_NAMES, QUEUE_URL_BASE_SETTING, queueSettings } from '../steps/table.ts';
import { TimingsSchema } from '../timings.ts';

function queueEntries(): [string, z.ZodType][] {
  return QUEUE_NAMES.flatMap((q) => {
    const s = queueSettings(q);
    return [
      // Optional each: a function needs the URLs of the queues it sends to, which its role allows,
      // given here or made from AICR_QUEUE_URL_BASE.
      [s.url, z.url({ error: `must be the URL of the ${q} FIFO queue` }).optional()],
      [s.arn, z.string().startsWith('arn:').optional()],
      [s.dlqUrl, z.url({ error: `must be the URL of the ${q} dead-letter queue` }).optional()],
    ] as [string, z.ZodType][];
  });
}

export const ConfigSchema = z.object({
  ...(Object.fromEntries(queueEntries()) as Record<string, z.ZodOptional<z.ZodString>>),
  /**
   * Every step queue's URL at once, the base each queue's name completes (shared/aws/routes.ts);
   * a queue's own AICR_<QUEUE>_QUEUE_URL wins over it. It gives a route to every step queue,
   * so the function's role, not this setting, limits which of them it may send to.
   */
  [QUEUE_URL_BASE_SETTING]: z
    .url({
      error:
        'must be the URL of the step queues up to their names ' +
        '(https://sqs.<region>.amazonaws.com/<account>/<service>-<stage>-)',
    })
    .optional(),
  /** Where delayed sends go; every function that delays a message needs it (the forwarder does not). */
  AICR_DELAY_QUEUE_URL: z.url({ error: 'must be the URL of the standard delay queue' }).optional(),
  /** Long timers (EventBridge Scheduler): the schedule group and the role it sends with. */
  AICR_TIMER_GROUP: z.string().min(1).max(64).optional(),
  AICR_TIMER_ROLE_ARN: z.string().startsWith('arn:').optional(),
  /** Where Scheduler puts a timer it could not deliver after its retries. */
  AICR_TIMER_DLQ_ARN: z.string().startsWith('arn:').optional(),
  /** On EKS: the cluster's name, API endpoint and CA; the functions sign EKS tokens with their role. */
  AICR_EKS_CLUSTER_NAME: z.string().min(1).max(100).optional(),
  AICR_EKS_ENDPOINT: z.url({ error: 'must be the cluster API endpoint (https://…)' }).optional(),
  AICR_EKS_CA_DATA: z.base64({ error: 'must be the base64 certificate authority data of the cluster' }).optional(),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /**
   * registry.auth.mode aws: create missing repositories under registry.repository (the deploy
   * parameter createRepositories).
   */
  [CREATE_REPOSITORIES_SETTING]: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
  /**
   * registry.auth.mode aws: the repository prefix the roles' ECR rights end at (the deploy
   * parameter registryPrefix); resolution and the token refresh refuse a registry.repository outside it.
   */
  [REGISTRY_PREFIX_SETTING]: z.string().max(200).optional(),
  /**
   * Whether a step run's timings are sent as metrics (true, as in local mode) or only logged (the
   * template's default without the dashboard).
   */
  [STEP_TIMING_METRICS_SETTING]: z.enum(['true', 'false'], { error: 'must be true or false' }).default('true'),
  /**
   * Further clusters this deployment serves (ADR 0019), comma-separated: EKS cluster names read
   * with eks:DescribeCluster, or contexts of AICR_KUBECONFIG elsewhere.
   */
  AICR_FLEET_CLUSTERS: z
    .string()
    .default('')
    .transform((s) =>
      s
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== ''),
    )
    .pipe(
      z
        .array(
          z
            .string()
            .max(EKS_CLUSTER_NAME.maxLength, { error: EKS_CLUSTER_NAME.message })
            .regex(EKS_CLUSTER_NAME.pattern, { error: EKS_CLUSTER_NAME.message }),
        )
        .max(50),
    ),
  /** Elsewhere: a kubeconfig file and context (local mode, tests). */
  AICR_KUBECONFIG: z.string().min(1).optional(),
  AICR_KUBE_CONTEXT: z.string().min(1).optional(),
  /** The longest one forwarder invocation watches; the schedule starts one every minute (ADR 0018). */
  AICR_FORWARDER_WINDOW_SECONDS: z.coerce.number().int().min(1).max(880).default(70),
  /**
   * An invocation leaves after a watch pass this long that sent no change; 0 watches the whole
   * window. At most 60: the next invocation must resume inside the API server's 75 s of history.
   */
  AICR_FORWARDER_QUIET_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  /** The EventBridge bus notifications go to (the notify step); absent, they go to the log. */
  AICR_EVENT_BUS: z.string().min(1).max(256).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** The `service` dimension of every metric (shared/observability/metrics.ts); one per deployment on AWS. */
  AICR_SERVICE_NAME: z.string().min(1).max(250).optional(),
  ...TimingsSchema.shape,
});
export type Config = z.output<typeof ConfigSchema>;

const KNOWN = new Set(Object.keys(ConfigSchema.shape));

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const unknown = Object.keys(env).filter((k) => k.startsWith('AICR_') && !KNOWN.has(k));
  if (unknown.length > 0) {
    throw new ConfigError(
      `unknown setting ${unknown.join(', ')}: known AICR_ settings are ` +
        `${[...KNOWN].filter((k) => k.startsWith('AICR_')).join(', ')}`,
    );
  }
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`setting ${issue?.path.join('.') ?? '?'} ${issue?.message ?? 'is invalid'}`);
  }
  const primary = parsed.data.AICR_EKS_CLUSTER_NAME ?? parsed.data.AICR_KUBE_CONTEXT;
  if (primary !== undefined && parsed.data.AICR_FLEET_CLUSTERS.includes(primary)) {
    throw new ConfigError(
      `setting AICR_FLEET_CLUSTERS lists ${primary}, the deployment's own cluster: list only the further ones`,
    );
  }
  // KROP-3's invariant: the sweeper never acts before the forwarder has had a whole window.
  if (parsed.data.AICR_SWEEP_GRACE <= parsed.data.AICR_FORWARDER_WINDOW_SECONDS * 1000) {
    throw new ConfigError(
      'setting AICR_SWEEP_GRACE must be longer than one forwarder window (AICR_FORWARDER_WINDOW_SECONDS, ' +
        `${parsed.data.AICR_FORWARDER_WINDOW_SECONDS}s)`,
    );
  }
  return parsed.data;
}

/** A setting the caller cannot work without. */
export function required(config: Config, key: string): string {
  const value = (config as Record<string, unknown>)[key];
  if (typeof value !== 'string' || value.length === 0)
    throw new ConfigError(`setting ${key} is required by this function`);
  return value;
}
