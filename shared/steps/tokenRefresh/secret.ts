// Argo CD's registry Secret as the token-refresh step writes it, and what the one in the cluster
// says: whose it is, whether it still has the shape the step gave it, and when it is due again.
// A Secret is the step's only when the step's field manager wrote it: the name alone proves
// nothing, and a Secret another tool or a person created is never taken over.
import {
  ANNOTATION,
  ARGOCD,
  ARGOCD_REGISTRY_SECRET,
  ECR_TOKEN_USER,
  FIELD_MANAGER,
  LABEL,
  MANAGED_BY_VALUE,
} from '../../api/constants.ts';
import type { GenericObject } from '../../kube/kinds.ts';
import type { WritableObject } from '../../kube/port.ts';

/** What Argo CD reads from the Secret, besides the password. */
export interface RepoCredsShape {
  /** registry.repository, without a scheme: the Secret's url is it behind oci://, the prefix of every chart source. */
  readonly url: string;
  readonly plainHttp: boolean;
}

export interface Minted {
  readonly password: string;
  readonly expiresAt: Date;
}

export type Held =
  | { readonly state: 'absent' }
  | { readonly state: 'foreign'; readonly why: string }
  | {
      readonly state: 'ours';
      readonly expiresAt: number;
      readonly refreshedAt: number;
      readonly answered: string;
      readonly intact: boolean;
    };

interface ManagedEntry {
  readonly manager?: string;
  readonly fieldsV1?: { readonly 'f:data'?: Record<string, unknown> };
}

const SECRET = `${ARGOCD_REGISTRY_SECRET.namespace}/${ARGOCD_REGISTRY_SECRET.name}`;

function plainData(shape: RepoCredsShape, password: string): Record<string, string> {
  return {
    url: `${ARGOCD.ociScheme}${shape.url}`,
    type: ARGOCD.ociCredentialType,
    username: ECR_TOKEN_USER,
    password,
    ...(shape.plainHttp ? { insecureOCIForceHttp: 'true' } : {}),
  };
}

/** The password in an ECR authorization token (base64 of `AWS:<password>`), or undefined for any other shape. */
export function passwordOf(auth: string): string | undefined {
  const pair = Buffer.from(auth, 'base64').toString('utf8');
  const colon = pair.indexOf(':');
  if (pair.slice(0, colon) !== ECR_TOKEN_USER || colon === pair.length - 1) return undefined;
  return pair.slice(colon + 1);
}

/** The Secret to apply; `answered` records the on-demand request this write answers. */
export function registrySecret(
  shape: RepoCredsShape,
  minted: Minted,
  at: { readonly now: Date; readonly answered?: string },
): WritableObject {
  const data = Object.fromEntries(
    Object.entries(plainData(shape, minted.password)).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  );
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: ARGOCD_REGISTRY_SECRET.name,
      namespace: ARGOCD_REGISTRY_SECRET.namespace,
      labels: { [ARGOCD.secretTypeLabel]: ARGOCD.repoCredsSecretType, [LABEL.managedBy]: MANAGED_BY_VALUE },
      annotations: {
        [ANNOTATION.tokenExpiresAt]: minted.expiresAt.toISOString(),
        [ANNOTATION.tokenRefreshedAt]: at.now.toISOString(),
        ...(at.answered === undefined ? {} : { [ANNOTATION.refreshAnswered]: at.answered }),
      },
    },
    data,
  };
}

function managedEntries(secret: GenericObject): ManagedEntry[] {
  const entries = (secret.metadata as { managedFields?: unknown }).managedFields;
  return Array.isArray(entries) ? (entries as ManagedEntry[]) : [];
}

function decoded(secret: GenericObject, key: string): string {
  const raw = (secret as { data?: Record<string, string> }).data?.[key];
  return raw === undefined ? '' : Buffer.from(raw, 'base64').toString('utf8');
}

/** Whether the Secret still holds what the step wrote: its keys, and none of them taken over by someone else. */
function intactOf(secret: GenericObject, shape: RepoCredsShape): boolean {
  const want = plainData(shape, '');
  const sameKeys = Object.entries(want).every(([k, v]) => k === 'password' || decoded(secret, k) === v);
  const labelled =
    secret.metadata.labels?.[ARGOCD.secretTypeLabel] === ARGOCD.repoCredsSecretType &&
    secret.metadata.labels[LABEL.managedBy] === MANAGED_BY_VALUE;
  // A key of ours someone else now owns was edited by them (kubectl edit, patch or apply). Keys
  // only they set are theirs to keep: counting those would rewrite the Secret on every look.
  const ours = new Set(Object.keys(plainData(shape, '')).map((k) => `f:${k}`));
  const takenOver = managedEntries(secret).some(
    (e) =>
      e.manager !== FIELD_MANAGER.tokenRefresh && Object.keys(e.fieldsV1?.['f:data'] ?? {}).some((k) => ours.has(k)),
  );
  return sameKeys && labelled && decoded(secret, 'password') !== '' && !takenOver;
}

/** What the Secret in the cluster is to the step. */
export function judge(secret: GenericObject | undefined, shape: RepoCredsShape): Held {
  if (!secret) return { state: 'absent' };
  if (!managedEntries(secret).some((e) => e.manager === FIELD_MANAGER.tokenRefresh)) {
    return {
      state: 'foreign',
      why:
        `Secret ${SECRET} exists but the control plane did not create it (field manager ` +
        `${FIELD_MANAGER.tokenRefresh} never wrote it), so it is left as it is; delete it to let the control ` +
        "plane write Argo CD's registry credentials, or set registry.auth.mode static to keep your own",
    };
  }
  const notes = secret.metadata.annotations ?? {};
  return {
    state: 'ours',
    expiresAt: Date.parse(notes[ANNOTATION.tokenExpiresAt] ?? ''),
    refreshedAt: Date.parse(notes[ANNOTATION.tokenRefreshedAt] ?? ''),
    answered: notes[ANNOTATION.refreshAnswered] ?? '',
    intact: intactOf(secret, shape),
  };
}

export interface Cadence {
  readonly now: number;
  readonly intervalMs: number;
  readonly staleWithinMs: number;
  /** The refresh-credentials value on the runtime, if a person asked for one. */
  readonly requested?: string;
}

/** Why the Secret must be written now, or undefined when it is fine as it is. */
export function dueBecause(held: Held, c: Cadence): string | undefined {
  if (held.state === 'absent') return 'absent';
  if (held.state === 'foreign') return undefined;
  if (c.requested !== undefined && c.requested !== held.answered) return 'requested';
  if (!held.intact) return 'edited';
  if (!(held.expiresAt - c.now > c.staleWithinMs)) return 'expiring';
  if (!(held.refreshedAt + c.intervalMs > c.now)) return 'interval';
  return undefined;
}

/** When a Secret written `refreshedAt` with a token expiring `expiresAt` is due again. */
export function nextDue(
  refreshedAt: number,
  expiresAt: number,
  c: Pick<Cadence, 'intervalMs' | 'staleWithinMs'>,
): number {
  return Math.min(refreshedAt + c.intervalMs, expiresAt - c.staleWithinMs);
}
