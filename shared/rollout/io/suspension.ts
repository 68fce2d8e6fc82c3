// The emergency stop (ENG-2): while spec.suspendEngine is true, every owned Application has its
// automated sync removed (spec.syncPolicy.automated, which every Argo CD version honours), and
// once it is false again, the ones the stop turned off get exactly the plan's automated sync
// back. Each write is a server-side apply under the rollout step's field manager of the fields
// that manager already owns, with their values as they stand: only `automated` and the marking
// annotation change, so a hand edit elsewhere is never written back (ROL-3). A write the API
// server refuses for good (an admission policy) is reported, named, and tried again next look.
import { ANNOTATION, FIELD_MANAGER, NAMESPACES } from '../../api/constants.ts';
import { KubeRequestError } from '../../errors.ts';
import { fieldAt } from '../../kube/fieldPath.ts';
import { type GenericObject, KIND } from '../../kube/kinds.ts';
import type { KubePort, WritableObject } from '../../kube/port.ts';
import { SYNC_POLICY } from '../../plans/applications.ts';

type Loose = Record<string, unknown>;
type Turn = 'off' | 'on';

export interface Suspension {
  /** spec.suspendEngine as the runtime says. */
  readonly suspend: boolean;
  /** Owned Applications whose automated sync is off for the stop. */
  readonly off: number;
  /** Applications the API server would not switch, each with why. */
  readonly refused: readonly { readonly app: string; readonly message: string }[];
}

/** HTTP answers that are no refusal of the write itself: gone, conflict, throttled; and the server's own errors. */
const passing = (status: number): boolean => [404, 409, 410, 429].includes(status) || status >= 500;

const isLoose = (v: unknown): v is Loose => typeof v === 'object' && v !== null && !Array.isArray(v);

function turnOf(app: GenericObject, suspend: boolean): Turn | undefined {
  if (app.metadata.deletionTimestamp) return undefined;
  const marked = app.metadata.annotations?.[ANNOTATION.engineSuspended] !== undefined;
  const on =
    fieldAt(app, 'spec.syncPolicy.automated') !== undefined && fieldAt(app, 'spec.syncPolicy.automated') !== null;
  if (suspend) return on || !marked ? 'off' : undefined;
  return marked ? 'on' : undefined;
}

/**
 * The live values of the fields in a managedFields set (fieldsV1): maps are followed key by key,
 * anything else is taken whole.
 */
function pick(value: unknown, fields: Loose): unknown {
  const keys = Object.keys(fields).filter((k) => k.startsWith('f:'));
  if (!isLoose(value) || keys.length === 0) return value;
  const out: Loose = {};
  for (const k of keys) {
    const name = k.slice(2);
    if (!(name in value)) continue;
    const sub = fields[k];
    out[name] = isLoose(sub) ? pick(value[name], sub) : value[name];
  }
  return out;
}

function ownedByRollout(app: GenericObject): Loose {
  const entries = (app.metadata as { managedFields?: unknown }).managedFields;
  const mine = Array.isArray(entries)
    ? entries.find(
        (e: unknown) => fieldAt(e, 'manager') === FIELD_MANAGER.rollout && fieldAt(e, 'operation') === 'Apply',
      )
    : undefined;
  const fields = fieldAt(mine, 'fieldsV1');
  return isLoose(fields) ? fields : {};
}

/** What the rollout step applies to switch the Application's automated sync. */
export function switchBody(app: GenericObject, turn: Turn): WritableObject {
  const picked = pick(app, ownedByRollout(app));
  const body = isLoose(picked) ? picked : {};
  const metadata = isLoose(body['metadata']) ? body['metadata'] : {};
  const owned = Object.entries(isLoose(metadata['annotations']) ? metadata['annotations'] : {}).filter(
    ([k]) => k !== ANNOTATION.engineSuspended,
  );
  const annotations: Loose = Object.fromEntries(
    turn === 'off' ? [...owned, [ANNOTATION.engineSuspended, 'true']] : owned,
  );
  const spec = isLoose(body['spec']) ? body['spec'] : {};
  const syncPolicy: Loose = { ...(isLoose(spec['syncPolicy']) ? spec['syncPolicy'] : {}) };
  delete syncPolicy['automated'];
  if (turn === 'on') syncPolicy['automated'] = { ...SYNC_POLICY.automated };
  return {
    apiVersion: KIND.application.apiVersion,
    kind: KIND.application.kind,
    metadata: { ...metadata, name: app.metadata.name, namespace: NAMESPACES.argocd, annotations },
    spec: { ...spec, syncPolicy },
  };
}

async function switchOne(kube: KubePort, app: GenericObject, turn: Turn): Promise<void> {
  const name = app.metadata.name;
  const written = await kube.apply(KIND.application, switchBody(app, turn), {
    fieldManager: FIELD_MANAGER.rollout,
    force: true,
  });
  // Another manager still holding part of `automated` keeps it through the apply: take it off outright.
  if (turn === 'off' && fieldAt(written, 'spec.syncPolicy.automated') !== undefined) {
    await kube.patch(KIND.application, name, NAMESPACES.argocd, { spec: { syncPolicy: { automated: null } } });
  }
}

/** Brings every owned Application to what spec.suspendEngine asks; refusals are collected, not thrown. */
export async function settleSuspension(
  kube: KubePort,
  apps: readonly GenericObject[],
  suspend: boolean,
): Promise<Suspension> {
  const refused: { app: string; message: string }[] = [];
  let off = 0;
  for (const app of apps) {
    const turn = turnOf(app, suspend);
    try {
      if (turn) await switchOne(kube, app, turn);
      if (suspend && !app.metadata.deletionTimestamp) off += 1;
    } catch (err) {
      if (!(err instanceof KubeRequestError) || passing(err.status)) throw err;
      refused.push({
        app: app.metadata.name,
        message:
          `turning automated sync ${turn ?? ''} on Application ${NAMESPACES.argocd}/${app.metadata.name}: ` +
          `${err.message}`,
      });
    }
  }
  return { suspend, off, refused };
}
