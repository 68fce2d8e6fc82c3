// The token-refresh step: in aws mode keeps Argo CD's repository Secret argocd/aicr-registry
// holding an ECR token for the plan's charts (REG-4). It writes when the Secret is missing,
// edited, expiring, older than the refresh interval, or when a person asked for a refresh on the
// runtime (REG-5, kubectl aicr refresh-credentials); otherwise it only arms the next look. A
// failed mint is retried with the framework's backoff and logged, never turned into an Event:
// the rollout step's EngineAvailable says when the token has gone stale. Neither the token nor
// anything derived from it is logged.
import { ANNOTATION, ARGOCD_REGISTRY_SECRET, ECR_TOKEN_USER, FIELD_MANAGER } from '../../api/constants.ts';
import { METRIC } from '../../observability/metrics.ts';
import { lookConfiguration } from '../../look/configuration.ts';
import type { Configuration } from '../../configuration/schema.ts';
import { KIND } from '../../kube/kinds.ts';
import { mintEcrToken } from '../../registry/ecrToken.ts';
import { deploymentPrefix, registryPrefixCheck } from '../../registry/prefix.ts';
import type { StepContext, StepReport, StepRunner } from '../../look/contract.ts';
import { credentialsHandling } from './handling.ts';
import {
  type Cadence,
  type Held,
  type Minted,
  type RepoCredsShape,
  dueBecause,
  judge,
  nextDue,
  passwordOf,
  registrySecret,
} from './secret.ts';

const SECRET = `${ARGOCD_REGISTRY_SECRET.namespace}/${ARGOCD_REGISTRY_SECRET.name}`;

type Mint =
  | { readonly ok: true; readonly minted: Minted; readonly assumed: boolean }
  | { readonly ok: false; readonly cause: string };

/** How long ECR documents its authorization tokens to be valid. */
const ECR_TOKEN_LIFETIME_MS = 12 * 3_600_000;

/**
 * ECR's token is base64 of `AWS:<password>`; anything else is refused without saying what it
 * held. An expiry already past (a skewed clock on either side) is replaced by the documented
 * lifetime from now, so one odd answer does not make the step mint in a loop.
 */
async function mint(now: Date): Promise<Mint> {
  const result = await mintEcrToken();
  if (!result.ok) return { ok: false, cause: result.cause };
  const password = passwordOf(result.token.auth);
  if (password === undefined)
    return { ok: false, cause: `ECR answered with a token that is not ${ECR_TOKEN_USER}:<password>` };
  if (!(result.token.expiresAt.getTime() > 0)) return { ok: false, cause: 'ECR answered without the token expiry' };
  const assumed = result.token.expiresAt.getTime() <= now.getTime();
  const expiresAt = assumed ? new Date(now.getTime() + ECR_TOKEN_LIFETIME_MS) : result.token.expiresAt;
  return { ok: true, minted: { password, expiresAt }, assumed };
}

function shapeOf(configuration: Configuration): RepoCredsShape {
  return { url: configuration.registry.repository, plainHttp: configuration.registry.plainHTTP };
}

/** Look again when the Secret is next due; every run asking for the same time arms one timer. */
function lookAgainAt(ctx: StepContext, due: number): StepReport {
  const now = ctx.now().getTime();
  const at = Math.max(due, now + ctx.timings.backoffBaseMs);
  return { recheckAfterMs: at - now, recheckKey: `refresh-${new Date(due).toISOString()}` };
}

async function write(ctx: StepContext, held: Held, configuration: Configuration, reason: string): Promise<StepReport> {
  const minted = await mint(ctx.now());
  if (!minted.ok) {
    ctx.log.warn('registry token refresh failed', {
      object: SECRET,
      reason,
      cause: minted.cause,
      fix: "check the token-refresh function's AWS identity: its policy must allow ecr:GetAuthorizationToken",
    });
    return { backoff: true };
  }
  const requested = ctx.runtime.metadata.annotations?.[ANNOTATION.refreshCredentials];
  const secret = registrySecret(shapeOf(configuration), minted.minted, {
    now: ctx.now(),
    ...(requested === undefined ? {} : { answered: requested }),
  });
  // Forced only over a Secret of ours: taking back keys someone edited is the point of the refresh.
  await ctx.kube.apply(KIND.secret, secret, { fieldManager: FIELD_MANAGER.tokenRefresh, force: held.state === 'ours' });
  const expiresAt = minted.minted.expiresAt;
  if (minted.assumed)
    ctx.log.warn('ECR answered with a token expiry already past; recording its documented 12-hour lifetime instead', {
      object: SECRET,
    });
  ctx.log.info('registry credentials refreshed', { object: SECRET, reason, expiresAt: expiresAt.toISOString() });
  ctx.log.metric({ metric: METRIC.tokenExpiry, value: Math.floor(expiresAt.getTime() / 1000) });
  return lookAgainAt(
    ctx,
    nextDue(ctx.now().getTime(), expiresAt.getTime(), {
      intervalMs: ctx.timings.tokenRefreshIntervalMs,
      staleWithinMs: ctx.timings.tokenStaleWithinMs,
    }),
  );
}

function cadenceOf(ctx: StepContext): Cadence {
  const requested = ctx.runtime.metadata.annotations?.[ANNOTATION.refreshCredentials];
  return {
    now: ctx.now().getTime(),
    intervalMs: ctx.timings.tokenRefreshIntervalMs,
    staleWithinMs: ctx.timings.tokenStaleWithinMs,
    ...(requested === undefined ? {} : { requested }),
  };
}

async function refresh(ctx: StepContext, configuration: Configuration): Promise<StepReport> {
  const held = judge(
    await ctx.kube.get(KIND.secret, ARGOCD_REGISTRY_SECRET.name, ARGOCD_REGISTRY_SECRET.namespace),
    shapeOf(configuration),
  );
  if (held.state === 'foreign') {
    // Nothing the step does changes this; the Secret's deletion wakes it.
    ctx.log.error('registry credentials not written', { object: SECRET, why: held.why });
    return {};
  }
  const cadence = cadenceOf(ctx);
  const reason = dueBecause(held, cadence);
  if (reason !== undefined) return write(ctx, held, configuration, reason);
  ctx.log.debug('registry credentials are fresh', { object: SECRET });
  return held.state === 'ours' ? lookAgainAt(ctx, nextDue(held.refreshedAt, held.expiresAt, cadence)) : {};
}

export const runTokenRefresh: StepRunner = async (ctx) => {
  if (ctx.runtime.metadata.deletionTimestamp) return {};
  const configuration = await lookConfiguration(ctx);
  const handling = credentialsHandling(configuration);
  if (!handling.writes) {
    ctx.log.debug('registry credentials not written here', { object: SECRET, why: handling.why });
    return {};
  }
  // A token these rights do not reach would only turn into ComparisonErrors in Argo CD; the
  // resolve step's Resolved says the same (this step owns no condition), and backing off
  // looks again, since a chart upgrade or a redeploy wakes nothing here.
  const prefix = registryPrefixCheck(configuration.registry, deploymentPrefix());
  if (!prefix.under) {
    ctx.log.error('registry credentials not written', { object: SECRET, why: prefix.message });
    return { backoff: true };
  }
  return refresh(ctx, configuration);
};
