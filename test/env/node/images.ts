// The image table: what the process node runs for an image reference, since it has no
// container runtime. Each image is an executable on this machine plus the directories put
// first on PATH; its digest is the executable's sha256, reported as the container's imageID.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEPLOYMENT_VALIDATOR_IMAGE,
  STAND_IN_REGISTRY,
  UPGRADE_CHECK_STAND_IN_IMAGE,
  UPGRADE_CHECK_STAND_IN_VERSION,
} from '../../../harness/imageNames.ts';

export interface ImageEntry {
  /** What runs when the container gives no command (the image's ENTRYPOINT). */
  readonly entrypoint: readonly string[];
  /** Directories searched first for the command, like the image's PATH. */
  readonly path: readonly string[];
  /** The file whose sha256 stands for the image digest. */
  readonly digestOf: string;
  /**
   * The private registry host that serves this image: a pull needs credentials for it from
   * the Pod's imagePullSecrets that the registry's accounts accept (see pullAuth.ts).
   */
  readonly privateRegistry?: string;
  /** The AICR image: the forced-run test knob may stand in front of this aicr (see aicrKnob.ts). */
  readonly aicrKnob?: { readonly realAicr: string };
  /** The image's own environment (its ENV), under what the Pod sets. */
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Directories of this machine the image's program reads (a checkout, a node binary). Like
   * the PATH directories, they are bound again over any volume that would hide them: AICR's
   * Jobs mount an emptyDir at /tmp, where a checkout may live.
   */
  readonly hostDirs?: readonly string[];
  /**
   * Directories of this machine that the image holds at fixed paths (its own /usr/local/bin,
   * say), bound read-only there: Argo CD's manifests run programs by absolute path.
   */
  readonly layers?: readonly { readonly source: string; readonly target: string }[];
  /** The image's WORKDIR: where the command runs when the container names no workingDir. */
  readonly workingDir?: string;
}

export type ImageTable = ReadonlyMap<string, ImageEntry>;

/** A private registry host (a stand-in too): its images are pulled only with credentials. */
export const PRIVATE_REGISTRY = `registry.${STAND_IN_REGISTRY}`;

/** This checkout: the Argo CD stand-in runs from its sources with the project's own node and tsx. */
const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** Where the real programs the Argo CD and Redis images stand for were built or installed (bootstrap.sh). */
export interface ArgoCdPrograms {
  /** Holds bin/argocd and the names it answers to (argocd-application-controller, argocd-repo-server). */
  readonly argocdDir: string;
  /** Helm, which Argo CD's repo-server runs to render charts (its image ships one). */
  readonly helmDir: string;
  /** Holds redis-server. */
  readonly redisDir: string;
}

/** The image Argo CD v3.5.1's install manifests run every component from. */
export const ARGOCD_IMAGE = 'quay.io/argoproj/argocd:v3.5.1';
/** The Redis image those manifests name. */
export const ARGOCD_REDIS_IMAGE = 'public.ecr.aws/docker/library/redis:8.2.3-alpine';

/**
 * Argo CD's release image: the real argocd binary built from the release's source, at
 * /usr/local/bin as the image has it (the manifests call /usr/local/bin/argocd-repo-server and
 * the like), with Helm on the PATH for the repo-server. The image's ENTRYPOINT is tini, which
 * only passes the arguments on, so the arguments run as they are.
 */
function argoCd(p: ArgoCdPrograms): ImageEntry {
  const bin = join(p.argocdDir, 'bin');
  return {
    entrypoint: [],
    path: [bin, p.helmDir],
    digestOf: join(bin, 'argocd'),
    layers: [{ source: bin, target: '/usr/local/bin' }],
    env: { USER: 'argocd' },
  };
}

/** The Redis image: Debian's redis-server (the image's entrypoint runs redis-server with flag arguments). */
function redis(p: ArgoCdPrograms): ImageEntry {
  return { entrypoint: ['redis-server'], path: [p.redisDir], digestOf: join(p.redisDir, 'redis-server') };
}

const here = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

/**
 * STAND-IN, not an AICR release: an aicr that answers `upgrade-check` itself (upgradeCheck.ts)
 * and hands every other command to the real v0.11.1, so a runtime pinned to a version with
 * upgrade-check still resolves with the real recipe and bundle. Node and tsx are this
 * process's own; the container sees this machine's files, as every image here does.
 */
function upgradeCheckStandIn(realAicr: string, verdictsKnob: string): ImageEntry {
  const bin = here('upgrade-check');
  const env = {
    AICR_STAND_IN_REAL_AICR: realAicr,
    AICR_STAND_IN_NODE: process.execPath,
    AICR_STAND_IN_TSX: import.meta.resolve('tsx'),
    AICR_STAND_IN_SCRIPT: here('upgradeCheck.ts'),
    AICR_STAND_IN_KNOB: verdictsKnob,
    AICR_STAND_IN_VERSION: UPGRADE_CHECK_STAND_IN_VERSION,
  };
  const hostDirs = [REPO_ROOT, dirname(process.execPath)];
  return {
    entrypoint: ['aicr'],
    path: [bin],
    digestOf: join(bin, 'aicr'),
    aicrKnob: { realAicr: join(bin, 'aicr') },
    env,
    hostDirs,
  };
}

/**
 * AICR's deployment validator image: the real validator program built from the release's
 * source (bootstrap.sh), with the real chainsaw its expected-resources check runs on its PATH,
 * and the image's /app/testdata (the Pod templates its checks read) in its working directory /app.
 */
function deploymentValidator(aicrBinDir: string, chainsawBinDir: string): ImageEntry {
  const program = join(aicrBinDir, 'validators', 'deployment');
  const layers = [{ source: join(aicrBinDir, 'validators', 'testdata'), target: '/app/testdata' }];
  return { entrypoint: [program], path: [chainsawBinDir], digestOf: program, layers, workingDir: '/app' };
}

/** `verdictsKnob`: the test knob file that steers the stand-in upgrade-check's verdicts. */
export function defaultImageTable(
  aicrBinDir: string,
  testenvBin: string,
  verdictsKnob: string,
  more: { readonly chainsawBinDir?: string; readonly argoCd?: ArgoCdPrograms } = {},
): ImageTable {
  const { chainsawBinDir = '', argoCd: argoCdPrograms } = more;
  const aicr = {
    entrypoint: ['aicr'],
    path: [aicrBinDir],
    digestOf: join(aicrBinDir, 'aicr'),
    aicrKnob: { realAicr: join(aicrBinDir, 'aicr') },
  };
  return new Map<string, ImageEntry>([
    ['ghcr.io/nvidia/aicr:v0.11.1', aicr],
    [UPGRADE_CHECK_STAND_IN_IMAGE, upgradeCheckStandIn(join(aicrBinDir, 'aicr'), verdictsKnob)],
    [DEPLOYMENT_VALIDATOR_IMAGE, deploymentValidator(aicrBinDir, chainsawBinDir)],
    // A shell with the pinned kubectl, for tests that need a command of their own.
    [`${STAND_IN_REGISTRY}/shell:1`, { entrypoint: ['/bin/sh'], path: [testenvBin], digestOf: '/bin/sh' }],
    // The CUDA base images AICR's validators run (nvidia-smi and the like): a shell. The
    // stand-in nvidia-smi is on the PATH of every Pod on a GPU Node, not in the image.
    ['nvcr.io/nvidia/cuda:13.0.0-base-ubuntu22.04', { entrypoint: ['/bin/bash'], path: [], digestOf: '/bin/bash' }],
    ['docker.io/nvidia/cuda:12.9.0-base-ubuntu24.04', { entrypoint: ['/bin/bash'], path: [], digestOf: '/bin/bash' }],
    // The same programs behind a private registry, as a mirror of the release image would be.
    [`${PRIVATE_REGISTRY}/nvidia/aicr:v0.11.1`, { ...aicr, privateRegistry: PRIVATE_REGISTRY }],
    [
      `${PRIVATE_REGISTRY}/shell:1`,
      { entrypoint: ['/bin/sh'], path: [testenvBin], digestOf: '/bin/sh', privateRegistry: PRIVATE_REGISTRY },
    ],
    // Workload Pods that only need to exist and stay running.
    [`${STAND_IN_REGISTRY}/pause:1`, { entrypoint: ['sleep', 'infinity'], path: [], digestOf: '/bin/sleep' }],
    // Argo CD's own components and their Redis, real programs (see ArgoCdPrograms).
    ...(argoCdPrograms
      ? ([
          [ARGOCD_IMAGE, argoCd(argoCdPrograms)],
          [ARGOCD_REDIS_IMAGE, redis(argoCdPrograms)],
        ] as const)
      : []),
  ]);
}

/** A reference as the kubelet would name it: short names live on Docker Hub. */
export function fullReference(image: string): string {
  const first = image.split('/')[0] ?? '';
  const hasHost = image.includes('/') && (first.includes('.') || first.includes(':') || first === 'localhost');
  const withHost = hasHost ? image : image.includes('/') ? `docker.io/${image}` : `docker.io/library/${image}`;
  const last = withHost.split('/').pop() ?? '';
  return last.includes(':') || last.includes('@') ? withHost : `${withHost}:latest`;
}

export function lookupImage(table: ImageTable, image: string): ImageEntry | undefined {
  return table.get(image) ?? table.get(fullReference(image));
}

const digests = new Map<string, Promise<string>>();

/** `repo@sha256:…`, as containerStatuses[].imageID reports it. */
export function imageId(image: string, entry: ImageEntry): Promise<string> {
  const repo = fullReference(image).replace(/:[^:/@]+$/, '');
  let digest = digests.get(entry.digestOf);
  if (!digest) {
    digest = new Promise<string>((resolve, reject) => {
      const hash = createHash('sha256');
      createReadStream(entry.digestOf)
        .on('data', (chunk) => hash.update(chunk))
        .on('end', () => resolve(hash.digest('hex')))
        .on('error', reject);
    });
    digests.set(entry.digestOf, digest);
  }
  return digest.then((hex) => `${repo}@sha256:${hex}`);
}
