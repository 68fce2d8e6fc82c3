// Configuration of a deployed function, parsed once at start from its environment. A
// misspelt AICR_* variable fails start-up with a message naming it.
import * as z from 'zod';

export const ConfigSchema = z.object({
  AICR_RESOLVE_QUEUE_URL: z.url({ error: 'must be the URL of the resolve FIFO queue' }),
  AICR_DELAY_QUEUE_URL: z.url({ error: 'must be the URL of the standard delay queue' }),
  /** How the functions reach Kubernetes: a kubeconfig file and context (tests, a VPC-less trial). */
  AICR_KUBECONFIG: z.string().min(1).optional(),
  AICR_KUBE_CONTEXT: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
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
    throw new ConfigError(`unknown setting ${unknown.join(', ')}: known AICR_ settings are ${[...KNOWN].filter((k) => k.startsWith('AICR_')).join(', ')}`);
  }
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`setting ${issue?.path.join('.') ?? '?'} ${issue?.message ?? 'is invalid'}`);
  }
  return parsed.data;
}
