// One reconciliation of one Application, in the order Argo CD's application controller works:
// consume a refresh request, release a deleted Application's resources finalizer, compare
// against the registry, then sync (automated or a manual operation) and record the outcome.
// It never renders or applies anything: a sync only writes the status a successful one would.
import { type ArgoCdKnob, readArgoCdKnobs } from '../knobFiles.ts';
import { compare } from './compare.ts';
import type { AppsApi } from './kube.ts';
import { type AppKnobs, type SyncPlan, comparedStatus, failedOperation, runningStatus, sameJson, syncPlan, syncedStatus, timestamp } from './status.ts';
import { type AppStatus, type Application, REFRESH_ANNOTATION, REFRESH_TIMESTAMP_ANNOTATION, RESOURCES_FINALIZER } from './types.ts';

export interface ReconcileDeps {
  readonly api: AppsApi;
  /** The test knobs' directory (ArgoCdKnob files); none when absent. */
  readonly knobsDir: string | undefined;
  /** How long a sync stays Running before it succeeds. */
  readonly syncDelayMs: number;
  /** How long "deleting resources" takes before the finalizer is released. */
  readonly deleteDelayMs: number;
  /** With nothing else to write, reconciledAt is written again once it is this old. */
  readonly reconcileMs: number;
  readonly log: (msg: string) => void;
}

/** What the stand-in last wrote to each Application: its resourceVersion and the status sent. */
export class Memory {
  private readonly written = new Map<string, { readonly rv: string; readonly status: AppStatus }>();

  record(app: Application, status: AppStatus): void {
    this.written.set(app.metadata.name, { rv: app.metadata.resourceVersion ?? '', status: withoutTime(status) });
  }

  /** Someone else wrote the Application since the stand-in last did (or it never has). */
  foreignWrite(app: Application): boolean {
    return this.written.get(app.metadata.name)?.rv !== app.metadata.resourceVersion;
  }

  unchanged(name: string, status: AppStatus): boolean {
    const last = this.written.get(name);
    return last !== undefined && sameJson(last.status, withoutTime(status));
  }

  forget(name: string): void {
    this.written.delete(name);
  }
}

const withoutTime = (status: AppStatus): AppStatus => Object.fromEntries(Object.entries(status).filter(([k]) => k !== 'reconciledAt'));
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function knobsFor(all: readonly ArgoCdKnob[], name: string): AppKnobs {
  const on = (pick: (k: ArgoCdKnob) => readonly string[] | undefined): boolean => all.some((k) => (pick(k) ?? []).some((n) => n === name || n === '*'));
  return { degraded: on((k) => k.degraded), neverSync: on((k) => k.neverSync), olderRevision: on((k) => k.olderRevision) };
}

async function writeStatus(ctx: Pick<Ctx, 'deps' | 'memory'>, app: Application, status: AppStatus, clearOperation = false): Promise<Application> {
  const { deps, memory } = ctx;
  // `add` replaces the whole status, so nothing from an earlier operation lingers (a merge patch would keep it).
  const ops = [{ op: 'add', path: '/status', value: status }, ...(clearOperation ? [{ op: 'remove', path: '/operation' }] : [])];
  const written = await deps.api.jsonPatch(app.metadata.name, ops);
  memory.record(written, status);
  return written;
}

async function writeIfDue(ctx: Ctx, app: Application, status: AppStatus): Promise<void> {
  const { deps, memory, refreshed } = ctx;
  const age = Date.now() - Date.parse(app.status?.reconciledAt ?? '1970-01-01T00:00:00Z');
  const due = refreshed || memory.foreignWrite(app) || !memory.unchanged(app.metadata.name, status) || age >= deps.reconcileMs;
  if (due) await writeStatus(ctx, app, status);
}

interface Ctx {
  readonly deps: ReconcileDeps;
  readonly memory: Memory;
  readonly refreshed: boolean;
}

async function releaseFinalizer(deps: ReconcileDeps, app: Application): Promise<void> {
  const finalizers = app.metadata.finalizers ?? [];
  const index = finalizers.findIndex((f) => f === RESOURCES_FINALIZER || f.startsWith(`${RESOURCES_FINALIZER}/`));
  if (index < 0) return;
  deps.log(`application ${app.metadata.name}: deleting its resources (none: the stand-in applied nothing)`);
  await sleep(deps.deleteDelayMs);
  // The test op makes the removal fail, rather than remove another finalizer, if the list moved meanwhile.
  const at = `/metadata/finalizers/${index}`;
  await deps.api.jsonPatch(app.metadata.name, [{ op: 'test', path: at, value: finalizers[index] }, { op: 'remove', path: at }]);
  deps.log(`application ${app.metadata.name}: removed finalizer ${finalizers[index]}`);
}

async function consumeRefresh(deps: ReconcileDeps, app: Application): Promise<Application> {
  const annotations = app.metadata.annotations ?? {};
  const patch = { metadata: { annotations: { [REFRESH_ANNOTATION]: null, ...(REFRESH_TIMESTAMP_ANNOTATION in annotations ? { [REFRESH_TIMESTAMP_ANNOTATION]: null } : {}) } } };
  deps.log(`application ${app.metadata.name}: refresh (${annotations[REFRESH_ANNOTATION]}) requested`);
  return deps.api.merge(app.metadata.name, patch);
}

async function sync(ctx: Ctx, app: Application, base: AppStatus, what: { plan: SyncPlan; knobs: AppKnobs }): Promise<void> {
  const { deps } = ctx;
  const { plan, knobs } = what;
  const running = runningStatus(base, plan, new Date());
  await writeStatus(ctx, app, running);
  deps.log(`application ${app.metadata.name}: syncing to ${plan.revisions.join(', ')} (${plan.manual ? 'requested operation' : 'automated'})`);
  await sleep(deps.syncDelayMs);
  const done = syncedStatus({ app, running, plan, knobs }, new Date());
  await writeStatus(ctx, app, done, plan.manual);
  deps.log(`application ${app.metadata.name}: synced at ${plan.revisions.join(', ')}, nothing applied${knobs.degraded ? ', Degraded (test knob)' : ''}${knobs.olderRevision ? ', reporting an older revision (test knob)' : ''}`);
}

/** Reconciles the named Application as it is now. */
export async function reconcile(deps: ReconcileDeps, memory: Memory, name: string): Promise<void> {
  let app = await deps.api.get(name);
  if (!app) return memory.forget(name);
  if (app.metadata.deletionTimestamp) return releaseFinalizer(deps, app);
  const refreshed = REFRESH_ANNOTATION in (app.metadata.annotations ?? {});
  if (refreshed) app = await consumeRefresh(deps, app);
  const ctx: Ctx = { deps, memory, refreshed };
  const knobs = knobsFor(deps.knobsDir ? await readArgoCdKnobs(deps.knobsDir) : [], name);
  if (knobs.neverSync) return writeIfDue(ctx, app, { ...app.status, reconciledAt: timestamp(new Date()) });
  const cmp = await compare(app, await deps.api.repoSecrets());
  const base = comparedStatus(app, cmp, knobs, new Date());
  if (!cmp.ok) {
    if (!memory.unchanged(name, base)) deps.log(`application ${name}: ComparisonError: ${cmp.message}`);
    if (app.operation?.sync) return void (await writeStatus(ctx, app, failedOperation(base, app.operation, cmp.message, new Date()), true));
    return writeIfDue(ctx, app, base);
  }
  const plan = syncPlan(app, knobs, cmp);
  if (!plan) return writeIfDue(ctx, app, base);
  await sync(ctx, app, base, { plan, knobs });
}
