// Plans as ConfigMaps in aicr-system (docs/plans.md). One rule keeps them whole: a payload
// bigger than INLINE_LIMIT is gzipped into binaryData, and a plan whose object would still pass
// SIZE_LIMIT is refused before anything is written, so no plan is ever half-written.
import { gunzipSync, gzipSync } from 'node:zlib';
import { ANNOTATION, LABEL, MANAGED_BY_VALUE, NAMESPACES, PLAN_SCHEMA_VERSION, ROLE } from '../api/constants.ts';
import type { ConfigMapObject } from '../kube/kinds.ts';
import { planTooLarge } from '../status/reasonMessages.resolved.ts';
import { canonicalJson, planDigest, planName } from './digest.ts';
import { type Plan, PlanInputsSchema, REBUILT_ORIGIN, ReleaseSetSchema } from './plan.ts';
import { type ReleaseSet, sortReleases } from './release.ts';

export const PAYLOAD = { releases: 'releases.json', recipe: 'recipe.yaml', inputs: 'inputs.json' } as const;
const GZ = '.gz';
/** Above this many bytes of payload, the payload is stored gzipped. */
export const INLINE_LIMIT = 256 * 1024;
/** The most a plan ConfigMap may hold, well under the API server's 1 MiB object limit. */
export const SIZE_LIMIT = 900 * 1024;

export class PlanTooLargeError extends Error {}

export interface PlanConfigMap {
  readonly apiVersion: 'v1';
  readonly kind: 'ConfigMap';
  readonly metadata: {
    readonly name: string;
    readonly namespace: string;
    readonly labels: Record<string, string>;
    readonly annotations: Record<string, string>;
  };
  readonly data?: Record<string, string>;
  readonly binaryData?: Record<string, string>;
  readonly [key: string]: unknown;
}

function payloadOf(plan: Plan): Record<string, string> {
  const out: Record<string, string> = { [PAYLOAD.releases]: canonicalJson(sortReleases(plan.releases)) };
  if (plan.recipe !== undefined) out[PAYLOAD.recipe] = plan.recipe;
  if (plan.inputs !== undefined) out[PAYLOAD.inputs] = canonicalJson(plan.inputs);
  return out;
}

const bytes = (m: Record<string, string>): number =>
  Object.entries(m).reduce((n, [k, v]) => n + k.length + Buffer.byteLength(v), 0);

function packed(
  payload: Record<string, string>,
): { data: Record<string, string> } | { binaryData: Record<string, string> } {
  if (bytes(payload) <= INLINE_LIMIT) return { data: payload };
  const binaryData: Record<string, string> = {};
  for (const [key, text] of Object.entries(payload))
    binaryData[key + GZ] = gzipSync(text, { level: 9 }).toString('base64');
  return { binaryData };
}

/** The ConfigMap a plan is stored as; throws PlanTooLargeError (naming the sizes) instead of writing part of it. */
export function planConfigMap(plan: Plan): PlanConfigMap {
  const body = packed(payloadOf(plan));
  const size = bytes('data' in body ? body.data : body.binaryData);
  if (size > SIZE_LIMIT) {
    const largest = [...plan.releases].sort(
      (a, b) => JSON.stringify(b.values).length - JSON.stringify(a.values).length,
    )[0];
    throw new PlanTooLargeError(
      planTooLarge({
        plan: planName(plan.digest),
        kib: Math.ceil(size / 1024),
        limitKib: SIZE_LIMIT / 1024,
        largest: largest?.name ?? 'none',
        largestKib: Math.ceil(JSON.stringify(largest?.values ?? {}).length / 1024),
      }),
    );
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: planName(plan.digest),
      namespace: NAMESPACES.system,
      labels: {
        [LABEL.role]: ROLE.plan,
        [LABEL.schemaVersion]: PLAN_SCHEMA_VERSION,
        [LABEL.managedBy]: MANAGED_BY_VALUE,
      },
      annotations: {
        [ANNOTATION.planDigest]: plan.digest,
        [ANNOTATION.runtimeUID]: plan.runtimeUID,
        ...(plan.rebuilt ? { [ANNOTATION.planOrigin]: REBUILT_ORIGIN } : {}),
      },
    },
    ...body,
  };
}

export type ReadPlan = { readonly ok: true; readonly plan: Plan } | { readonly ok: false; readonly problem: string };

function unpacked(cm: ConfigMapObject): Record<string, string> {
  const out: Record<string, string> = { ...(cm.data ?? {}) };
  for (const [key, b64] of Object.entries(cm.binaryData ?? {})) {
    if (key.endsWith(GZ)) out[key.slice(0, -GZ.length)] = gunzipSync(Buffer.from(b64, 'base64')).toString('utf8');
  }
  return out;
}

function parseJson(text: string | undefined, what: string): { value: unknown } | { problem: string } {
  if (text === undefined) return { problem: `has no ${what}` };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    return { problem: `${what} is not JSON (${(err as Error).message})` };
  }
}

function labelProblem(cm: ConfigMapObject): string | undefined {
  if (cm.metadata.labels?.[LABEL.role] !== ROLE.plan)
    return `is not a plan (it lacks the label ${LABEL.role}=${ROLE.plan})`;
  const schema = cm.metadata.labels[LABEL.schemaVersion];
  if (schema !== PLAN_SCHEMA_VERSION)
    return (
      `unsupported plan schema version label ${JSON.stringify(schema ?? '')}; this control plane reads version ` +
      `"${PLAN_SCHEMA_VERSION}"`
    );
  return undefined;
}

function releasesOf(payload: Record<string, string>): { releases: ReleaseSet } | { problem: string } {
  const json = parseJson(payload[PAYLOAD.releases], PAYLOAD.releases);
  if ('problem' in json) return json;
  const releases = ReleaseSetSchema.safeParse(json.value);
  if (!releases.success)
    return {
      problem:
        `${PAYLOAD.releases} is not a release set (${releases.error.issues[0]?.path.join('.') ?? ''}: ` +
        `${releases.error.issues[0]?.message ?? ''})`,
    };
  return { releases: releases.data };
}

function unpackedOrProblem(cm: ConfigMapObject): { payload: Record<string, string> } | { problem: string } {
  try {
    return { payload: unpacked(cm) };
  } catch (err) {
    return { problem: `its gzipped payload does not unpack (${(err as Error).message})` };
  }
}

/** Reads a plan ConfigMap back, checking that its schema label, payload and digest agree (PLAN-3). */
export function readPlanConfigMap(cm: ConfigMapObject): ReadPlan {
  const name = cm.metadata.name;
  const bad = (problem: string): ReadPlan => ({ ok: false, problem: `plan ${name}: ${problem}` });
  const labels = labelProblem(cm);
  if (labels) return bad(labels);
  const unpackedPayload = unpackedOrProblem(cm);
  if ('problem' in unpackedPayload) return bad(unpackedPayload.problem);
  const { payload } = unpackedPayload;
  const read = releasesOf(payload);
  if ('problem' in read) return bad(read.problem);
  const digest = planDigest(read.releases);
  const recorded = cm.metadata.annotations?.[ANNOTATION.planDigest];
  if (recorded !== digest)
    return bad(
      `its ${ANNOTATION.planDigest} annotation ${JSON.stringify(recorded ?? '')} does not match the digest of ` +
        `its releases, ${digest}`,
    );
  if (planName(digest) !== name) return bad(`its name does not match its digest ${digest}`);
  const rebuilt = cm.metadata.annotations?.[ANNOTATION.planOrigin] === REBUILT_ORIGIN;
  return withExtras(
    payload,
    {
      digest,
      releases: read.releases,
      runtimeUID: cm.metadata.annotations?.[ANNOTATION.runtimeUID] ?? '',
      ...(rebuilt ? { rebuilt } : {}),
    },
    bad,
  );
}

function withExtras(payload: Record<string, string>, plan: Plan, bad: (p: string) => ReadPlan): ReadPlan {
  if (!plan.runtimeUID) return bad(`it lacks the ${ANNOTATION.runtimeUID} annotation`);
  const recipe = payload[PAYLOAD.recipe];
  const inputsText = payload[PAYLOAD.inputs];
  if (inputsText === undefined) return { ok: true, plan: recipe === undefined ? plan : { ...plan, recipe } };
  const json = parseJson(inputsText, PAYLOAD.inputs);
  if ('problem' in json) return bad(json.problem);
  const inputs = PlanInputsSchema.safeParse(json.value);
  if (!inputs.success)
    return bad(`${PAYLOAD.inputs} does not hold the plan's inputs (${inputs.error.issues[0]?.message ?? ''})`);
  return { ok: true, plan: { ...plan, inputs: inputs.data, ...(recipe === undefined ? {} : { recipe }) } };
}
