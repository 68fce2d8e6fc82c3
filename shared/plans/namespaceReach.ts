// Where a plan's releases would put objects, against argocd.namespaces: each release's own
// namespace and every namespace its raw manifests name. Resolution refuses a plan that reaches
// further, before anything is written, instead of leaving Argo CD to refuse one Application in the
// middle of a rollout. An upstream chart's own templates are not rendered here (the control plane
// runs no Helm); the AppProject's destinations hold those, and Argo CD refuses the sync.
import { namespaceAllowed } from '../api/releaseNamespaces.ts';
import { manifestFilesOf } from './manifestsChart.ts';
import type { Release } from './release.ts';

export interface NamespaceOutside {
  readonly release: string;
  readonly namespace: string;
  /** The file that names it, when a raw manifest does; absent for the release's own namespace. */
  readonly file?: string;
}

const utf8 = new TextDecoder('utf-8');

/**
 * The namespaces a manifests file names in its documents' `metadata.namespace` (and the names of
 * the Namespaces it creates). The files are Helm templates, so this reads lines rather than YAML:
 * `{{ .Release.Namespace }}` is the release's namespace, and any other template expression says
 * nothing this can know.
 */
export function manifestNamespaces(text: string, releaseNamespace: string): string[] {
  const found = new Set<string>();
  for (const doc of text.split(/^---\s*$/m)) {
    const lines = doc.split('\n');
    const isNamespace = lines.some((l) => /^kind:\s*Namespace\s*$/.test(l));
    let inMetadata = false;
    for (const line of lines) {
      if (/^\S/.test(line)) inMetadata = /^metadata:\s*$/.test(line);
      const m = inMetadata ? /^ {2}(namespace|name):\s*(\S.*?)\s*$/.exec(line) : null;
      if (!m || (m[1] === 'name' && !isNamespace)) continue;
      const value = (m[2] ?? '').replace(/^["']|["']$/g, '');
      if (/^\{\{-?\s*\.Release\.Namespace\s*-?\}\}$/.test(value)) found.add(releaseNamespace);
      else if (!value.includes('{{')) found.add(value);
    }
  }
  return [...found];
}

/** The first of the releases' namespaces that `allowed` does not list, or undefined when all are listed. */
export function namespaceOutside(
  releases: readonly Release[],
  files: ReadonlyMap<string, Uint8Array>,
  allowed: readonly string[],
): NamespaceOutside | undefined {
  for (const release of releases) {
    if (!namespaceAllowed(release.namespace, allowed)) return { release: release.name, namespace: release.namespace };
    for (const [path, bytes] of manifestFilesOf(files, release.name)) {
      const outside = manifestNamespaces(utf8.decode(bytes), release.namespace).find(
        (ns) => !namespaceAllowed(ns, allowed),
      );
      if (outside !== undefined)
        return { release: release.name, namespace: outside, file: `${release.name}/manifests/${path}` };
    }
  }
  return undefined;
}
