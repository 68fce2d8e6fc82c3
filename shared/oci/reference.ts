// An OCI reference as AICR's `-o oci://…` takes it: host[:port]/path[:tag][@sha256:…]. Only
// sha256 digests are read: it is the one algorithm AICR and the registries we target use.
import { BundleUnreadableError } from '../errors.ts';

export interface OciReference {
  /** host[:port], as the docker config's `auths` keys name it. */
  readonly registry: string;
  readonly repository: string;
  readonly tag?: string;
  /** `sha256:<64 hex>`; when present it is what is pulled, and the manifest must hash to it. */
  readonly digest?: string;
}

const HOST =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*(?::[0-9]{1,5})?$/;
const PATH_COMPONENT = '[a-z0-9]+(?:(?:\\.|_|__|-+)[a-z0-9]+)*';
const REPOSITORY = new RegExp(`^${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);
const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
export const SHA256_DIGEST = /^sha256:[0-9a-f]{64}$/;

const FORM = 'host[:port]/repository[:tag][@sha256:<hex>]';

function invalid(text: string, detail: string): BundleUnreadableError {
  return new BundleUnreadableError(text, `not a valid OCI reference (${FORM}): ${detail}`);
}

/** Splits `name[:tag]`: a colon is a tag separator only after the last slash (else it is a port). */
function splitTag(nameAndTag: string): { name: string; tag?: string } {
  const colon = nameAndTag.lastIndexOf(':');
  if (colon <= nameAndTag.lastIndexOf('/')) return { name: nameAndTag };
  return { name: nameAndTag.slice(0, colon), tag: nameAndTag.slice(colon + 1) };
}

/** What is wrong with the parts of a reference; undefined when nothing is. */
function problemWith(parts: {
  registry: string;
  repository: string;
  tag: string | undefined;
  digest: string | undefined;
}): string | undefined {
  const { registry, repository, tag, digest } = parts;
  if (!HOST.test(registry)) return `registry host "${registry}" is not a host name with an optional port`;
  if (!REPOSITORY.test(repository))
    return `repository "${repository}" must be lowercase path components separated by "/"`;
  if (tag !== undefined && !TAG.test(tag)) return `tag "${tag}" is not a valid tag`;
  if (digest !== undefined && !SHA256_DIGEST.test(digest))
    return 'the digest must be sha256: followed by 64 lowercase hex digits';
  if (tag === undefined && digest === undefined) return 'it has neither a tag nor a digest';
  return undefined;
}

/** Parses a reference, with or without an `oci://` prefix; throws BundleUnreadableError naming what is wrong. */
export function parseReference(text: string): OciReference {
  const bare = text.startsWith('oci://') ? text.slice('oci://'.length) : text;
  const at = bare.indexOf('@');
  const digest = at < 0 ? undefined : bare.slice(at + 1);
  const { name, tag } = splitTag(at < 0 ? bare : bare.slice(0, at));
  const slash = name.indexOf('/');
  if (slash < 0) throw invalid(text, 'it names no repository after the registry host');
  const parts = { registry: name.slice(0, slash), repository: name.slice(slash + 1), tag, digest };
  const problem = problemWith(parts);
  if (problem !== undefined) throw invalid(text, problem);
  return {
    registry: parts.registry,
    repository: parts.repository,
    ...(tag === undefined ? {} : { tag }),
    ...(digest === undefined ? {} : { digest }),
  };
}

export function formatReference(ref: OciReference): string {
  const tag = ref.tag === undefined ? '' : `:${ref.tag}`;
  const digest = ref.digest === undefined ? '' : `@${ref.digest}`;
  return `${ref.registry}/${ref.repository}${tag}${digest}`;
}
