// Pinned validator images (VAL-4). AICR v0.11.1 reads its validator catalog only from its binary,
// so the images it runs cannot be replaced by configuration; the control plane holds them to
// aicr.validatorImages instead: every validator image, at the tag AICR names, must be pinned
// there by digest, and a validator Pod must run exactly that digest.
import { AICR_RUN_ID_LABEL, NAMESPACES } from '../../api/constants.ts';
import { DIGEST_PINNED } from '../../configuration/schema.ts';
import { KIND, type PodObject } from '../../kube/kinds.ts';
import type { KubePort } from '../../kube/port.ts';

/** How AICR labels its validator Pods and Jobs (v0.11.1, pkg/validator/labels). */
export const VALIDATOR_POD_SELECTOR = 'app.kubernetes.io/component=validation,aicr.nvidia.com/validator';
export const VALIDATOR_JOB_SELECTOR = `aicr.nvidia.com/job-type=validation,${AICR_RUN_ID_LABEL}`;

/** The deployment validator image a release of AICR names (release builds tag it with their version). */
export function deploymentValidatorImage(version: string): string {
  return `ghcr.io/nvidia/aicr-validators/deployment:${version}`;
}

/** Why `image` (as AICR names it) is not pinned by digest, or undefined when it is. */
export function unpinned(image: string, pins: Readonly<Record<string, string>>): string | undefined {
  const pin = pins[image];
  if (pin === undefined)
    return (
      `validator image ${image} is not pinned in aicr.validatorImages at the tag AICR names; ` +
      'pin it by digest there'
    );
  if (!DIGEST_PINNED.test(pin))
    return (
      `validator image ${image} is pinned in aicr.validatorImages as ${pin}, without a digest; ` +
      'pin it as <image>@sha256:<digest>'
    );
  return undefined;
}

type PodWithSpec = PodObject & { readonly spec?: { readonly containers?: readonly { readonly image?: unknown }[] } };

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** The image the Pod's validator container runs, as AICR named it. */
function namedImage(pod: PodWithSpec): string {
  return text(pod.spec?.containers?.[0]?.image);
}

/** The digests the Pod's containers report running (imageID, once started). */
function runningDigests(pod: PodObject): string[] {
  return (pod.status?.containerStatuses ?? [])
    .map((c) => /sha256:[a-f0-9]{64}$/.exec(text(c['imageID']))?.[0])
    .filter((d) => d !== undefined);
}

function podBreach(pod: PodWithSpec, pins: Readonly<Record<string, string>>): string | undefined {
  const image = namedImage(pod);
  if (image === '') return undefined;
  const why = unpinned(image, pins);
  if (why) return `${why} (Pod ${pod.metadata.name})`;
  const want = DIGEST_PINNED.exec(pins[image] ?? '')?.[1] ?? '';
  const other = runningDigests(pod).find((got) => got !== want);
  return other
    ? `validator image ${image} runs ${other} in Pod ${pod.metadata.name}, not ${want} as aicr.validatorImages pins it`
    : undefined;
}

/** The first breach of the pins among the Pods: an image not pinned, or one running another digest. */
export function pinBreach(pods: readonly PodObject[], pins: Readonly<Record<string, string>>): string | undefined {
  for (const pod of pods) {
    const breach = podBreach(pod, pins);
    if (breach) return breach;
  }
  return undefined;
}

/** AICR's validator Pods in aicr-validation, the only namespace the control plane's runs use. */
export async function validatorPods(kube: KubePort): Promise<PodObject[]> {
  return (await kube.list(KIND.pod, { namespace: NAMESPACES.validation, labelSelector: VALIDATOR_POD_SELECTOR })).items;
}

/**
 * Deletes AICR's validator Jobs in aicr-validation, so a breaching validator stops; AICR's own run
 * then ends and cleans up its binding.
 */
export async function stopValidators(kube: KubePort): Promise<string[]> {
  const jobs = (await kube.list(KIND.job, { namespace: NAMESPACES.validation, labelSelector: VALIDATOR_JOB_SELECTOR }))
    .items;
  for (const job of jobs)
    await kube.delete(KIND.job, job.metadata.name, NAMESPACES.validation, { propagationPolicy: 'Background' });
  return jobs.map((j) => j.metadata.name);
}

/** The run ID AICR gave its validator Jobs in aicr-validation, when one is there. */
export async function currentRunID(kube: KubePort): Promise<string | undefined> {
  const jobs = (await kube.list(KIND.job, { namespace: NAMESPACES.validation, labelSelector: VALIDATOR_JOB_SELECTOR }))
    .items;
  return jobs.map((j) => j.metadata.labels?.[AICR_RUN_ID_LABEL]).find((id) => id !== undefined);
}
