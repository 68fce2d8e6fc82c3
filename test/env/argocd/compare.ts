// The comparison step: resolve each source to a revision, as the repo-server would. For a Helm
// chart over OCI the revision is the exact chart version, once the registry has confirmed it
// exists with the credentials Argo CD would pick.
import type { V1Secret } from '@kubernetes/client-node';
import { chartProblem } from './registry.ts';
import { credentialsFor } from './repoCreds.ts';
import { type Application, STAND_IN, type Source, sourcesOf } from './types.ts';

export type Comparison = { readonly ok: true; readonly revisions: readonly string[] } | { readonly ok: false; readonly message: string };

async function sourceProblem(source: Source, secrets: readonly V1Secret[]): Promise<string | undefined> {
  const repoURL = source.repoURL ?? '';
  const chart = source.chart ?? '';
  const version = source.targetRevision ?? '';
  if (!chart || !version) {
    return `source ${repoURL || '(no repoURL)'} has no chart or no targetRevision: the stand-in resolves Helm charts over OCI at an exact version only`;
  }
  const creds = credentialsFor(secrets, repoURL);
  if (!creds) return `failed to get chart ${chart} version ${version} from ${repoURL}: no repository credentials in namespace argocd match ${repoURL}`;
  return chartProblem({ repoURL, chart, version }, creds);
}

export async function compare(app: Application, secrets: readonly V1Secret[]): Promise<Comparison> {
  const { sources } = sourcesOf(app);
  if (sources.length === 0) return { ok: false, message: `application spec has no source ${STAND_IN}` };
  const problems = await Promise.all(sources.map((s) => sourceProblem(s, secrets)));
  const failed = problems.filter((p): p is string => p !== undefined);
  if (failed.length > 0) return { ok: false, message: `${failed.join('; ')} ${STAND_IN}` };
  return { ok: true, revisions: sources.map((s) => s.targetRevision ?? '') };
}
