// Simulated GPUs: what the stand-in nvidia-smi (./nvidia-smi) prints for a Pod on a GPU Node.
// The facts come from the Node object alone (feature discovery's labels and the
// nvidia.com/gpu capacity), so a Node shaped differently in a test shows different GPUs.
// No GPU device is ever exposed; only the command answers.
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Node } from '@kubernetes/client-node';
import { DEFAULT_CUDA_VERSION, DEFAULT_DRIVER_VERSION } from './nodeShapes.ts';

export interface GpuFacts {
  /** As nvidia-smi names it ("NVIDIA H100 80GB HBM3"); the label has dashes for spaces. */
  readonly product: string;
  readonly count: number;
  readonly memoryMiB: number;
  readonly architecture: string;
  readonly driverVersion: string;
  readonly cudaVersion: string;
  /** Stable per Node, so UUIDs stay the same across Pods. */
  readonly uuidPrefix: string;
}

const STAND_IN = join(dirname(fileURLToPath(import.meta.url)), 'nvidia-smi');

const ARCHITECTURES: Readonly<Record<string, string>> = {
  hopper: 'Hopper',
  blackwell: 'Blackwell',
  ampere: 'Ampere',
  'ada-lovelace': 'Ada Lovelace',
};

function uuidPrefix(nodeName: string): string {
  const hex = createHash('sha256').update(nodeName).digest('hex');
  return `GPU-${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 30)}`;
}

/** The GPUs a Node says it has; undefined for a Node without GPUs. */
export function gpuFactsOf(node: V1Node): GpuFacts | undefined {
  const labels = node.metadata?.labels ?? {};
  const label = (key: string, fallback: string): string => labels[key] ?? fallback;
  const count = Number(node.status?.capacity?.['nvidia.com/gpu'] ?? label('nvidia.com/gpu.count', '0'));
  if (labels['nvidia.com/gpu.present'] !== 'true' || !(count > 0)) return undefined;
  return {
    product: label('nvidia.com/gpu.product', 'NVIDIA-GPU').replaceAll('-', ' '),
    count,
    memoryMiB: Number(label('nvidia.com/gpu.memory', '0')),
    architecture: ARCHITECTURES[label('nvidia.com/gpu.family', '')] ?? 'Unknown',
    driverVersion: label('nvidia.com/cuda.driver-version.full', DEFAULT_DRIVER_VERSION),
    cudaVersion: label('nvidia.com/cuda.runtime-version.full', DEFAULT_CUDA_VERSION),
    uuidPrefix: uuidPrefix(node.metadata?.name ?? ''),
  };
}

const q = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

function factsFile(facts: GpuFacts): string {
  return [
    '# Written by the process node from the Node object: simulated GPUs.',
    `GPU_PRODUCT=${q(facts.product)}`,
    `GPU_COUNT=${Math.trunc(facts.count)}`,
    `GPU_MEMORY_MIB=${Math.trunc(facts.memoryMiB)}`,
    `GPU_ARCHITECTURE=${q(facts.architecture)}`,
    `DRIVER_VERSION=${q(facts.driverVersion)}`,
    `CUDA_VERSION=${q(facts.cudaVersion)}`,
    `GPU_UUID_PREFIX=${q(facts.uuidPrefix)}`,
    '',
  ].join('\n');
}

/**
 * Puts the stand-in and the Node's facts in `<podDir>/nvidia/` and returns the directory to
 * put on the containers' PATH (where a GPU runtime would bind the driver's tools).
 */
export async function provideNvidiaSmi(podDir: string, facts: GpuFacts): Promise<string> {
  const root = join(podDir, 'nvidia');
  const bin = join(root, 'bin');
  await mkdir(bin, { recursive: true });
  await writeFile(join(root, 'gpus.env'), factsFile(facts));
  await copyFile(STAND_IN, join(bin, 'nvidia-smi'));
  await chmod(join(bin, 'nvidia-smi'), 0o755);
  return bin;
}
