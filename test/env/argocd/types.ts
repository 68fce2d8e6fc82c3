// The parts of Argo CD's Application (argoproj.io/v1alpha1) the stand-in reads and writes, and
// the names Argo CD gives its annotations, finalizer, Secret labels and field manager.

export const ARGOCD_NAMESPACE = 'argocd';
export const GROUP = 'argoproj.io';
export const VERSION = 'v1alpha1';
export const PLURAL = 'applications';
/** Argo CD's own field manager name, so audit logs and managedFields read as they would with Argo CD. */
export const FIELD_MANAGER = 'argocd-application-controller';
export const REFRESH_ANNOTATION = 'argocd.argoproj.io/refresh';
export const REFRESH_TIMESTAMP_ANNOTATION = 'argocd.argoproj.io/refresh-timestamp';
export const RESOURCES_FINALIZER = 'resources-finalizer.argocd.argoproj.io';
export const SECRET_TYPE_LABEL = 'argocd.argoproj.io/secret-type';
/** Every message the stand-in writes ends with this, so nobody mistakes it for Argo CD. */
export const STAND_IN = '(Argo CD stand-in)';
/** Argo CD's default revisionHistoryLimit. */
export const HISTORY_LIMIT = 10;

export interface Source {
  readonly repoURL?: string;
  readonly chart?: string;
  readonly targetRevision?: string;
  readonly [key: string]: unknown;
}

export interface SyncRequest {
  readonly revision?: string;
  readonly revisions?: readonly string[];
}

export interface Operation {
  readonly sync?: SyncRequest;
  readonly initiatedBy?: { readonly username?: string; readonly automated?: boolean };
  readonly [key: string]: unknown;
}

export interface Condition {
  readonly type: string;
  readonly message: string;
  readonly lastTransitionTime?: string;
}

export interface Health {
  readonly status: string;
  readonly message?: string;
  readonly lastTransitionTime?: string;
}

/** `source`+`revision` for one source, `sources`+`revisions` for several, as Argo CD writes them. */
export interface Revised {
  readonly revision?: string;
  readonly revisions?: readonly string[];
  readonly source?: Source;
  readonly sources?: readonly Source[];
}

export interface OperationState {
  readonly phase: string;
  readonly message?: string;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly operation: Operation;
  readonly syncResult?: Revised;
}

export interface HistoryEntry extends Revised {
  readonly id: number;
  readonly deployedAt: string;
  readonly deployStartedAt?: string;
  readonly initiatedBy?: Operation['initiatedBy'];
}

export interface AppStatus {
  readonly sync?: { readonly status: string; readonly revision?: string; readonly revisions?: readonly string[]; readonly comparedTo?: unknown };
  readonly health?: Health;
  readonly conditions?: readonly Condition[];
  readonly operationState?: OperationState;
  readonly history?: readonly HistoryEntry[];
  readonly reconciledAt?: string;
  readonly [key: string]: unknown;
}

export interface Application {
  readonly metadata: {
    readonly name: string;
    readonly resourceVersion?: string;
    readonly deletionTimestamp?: string;
    readonly finalizers?: readonly string[];
    readonly annotations?: Readonly<Record<string, string>>;
    readonly managedFields?: readonly { readonly manager?: string; readonly time?: string }[];
  };
  readonly spec: {
    readonly source?: Source;
    readonly sources?: readonly Source[];
    readonly destination?: unknown;
    readonly syncPolicy?: { readonly automated?: { readonly enabled?: boolean } | null };
  };
  readonly operation?: Operation | null;
  readonly status?: AppStatus;
}

/** The spec's sources as a list, and whether the spec uses the multi-source form. */
export function sourcesOf(app: Application): { sources: readonly Source[]; multi: boolean } {
  const multi = (app.spec.sources?.length ?? 0) > 0;
  return { sources: multi ? (app.spec.sources ?? []) : app.spec.source ? [app.spec.source] : [], multi };
}

/** Revisions (and sources) in Argo CD's single- or multi-source shape. */
export function revised(revisions: readonly string[], sources: readonly Source[], multi: boolean): Revised {
  return multi ? { revisions, sources } : { revision: revisions[0] ?? '', source: sources[0] ?? {} };
}

/** The revisions of a Revised, as a list whatever its shape. */
export function revisionsOf(r: Revised | undefined): string[] {
  if (!r) return [];
  return r.revisions ? [...r.revisions] : r.revision !== undefined ? [r.revision] : [];
}
