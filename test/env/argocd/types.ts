// The parts of Argo CD's Application (argoproj.io/v1alpha1) the tests read, as Argo CD v3.5.1's
// application controller writes them.

export interface Source {
  readonly repoURL?: string;
  readonly chart?: string;
  readonly targetRevision?: string;
  readonly [key: string]: unknown;
}

/** `source`+`revision` for one source, `sources`+`revisions` for several, as Argo CD writes them. */
export interface Revised {
  readonly revision?: string;
  readonly revisions?: readonly string[];
  readonly source?: Source;
  readonly sources?: readonly Source[];
}

export interface AppStatus {
  readonly sync?: {
    readonly status: string;
    readonly revision?: string;
    readonly revisions?: readonly string[];
    readonly comparedTo?: unknown;
  };
  readonly health?: { readonly status: string; readonly message?: string };
  readonly conditions?: readonly { readonly type: string; readonly message: string }[];
  readonly operationState?: {
    readonly phase: string;
    readonly message?: string;
    readonly syncResult?: Revised;
    readonly [key: string]: unknown;
  };
  readonly history?: readonly (Revised & { readonly id: number })[];
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
    readonly project?: string;
    readonly syncPolicy?: { readonly automated?: { readonly enabled?: boolean } | null };
  };
  readonly operation?: unknown;
  readonly status?: AppStatus;
}
