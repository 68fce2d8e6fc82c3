// Turns a container of a Pod into a process: the image table's command, the kubelet's
// environment, and the volume mounts; reports the start, or why it could not start.
import { dirname, join } from 'node:path';
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { aicrKnobPath } from './aicrKnob.ts';
import { containerEnv, expand } from './containerEnv.ts';
import type { ImageEntry } from './images.ts';
import { MountPathError, type BindMount } from './mountScript.ts';
import type { NodeDeps } from './podRunner.ts';
import { type Exit, type RunningContainer, startContainer } from './runContainer.ts';

export interface LaunchContext {
  readonly deps: NodeDeps;
  readonly pod: V1Pod;
  readonly dir: string;
  readonly volumes: ReadonlyMap<string, string>;
  /** Directories a GPU runtime would provide (the simulated nvidia-smi), after the image's. */
  readonly driverPath: readonly string[];
}

export interface LaunchHooks {
  onStart(proc: RunningContainer, startedAt: Date): Promise<void>;
  onCreateError(reason: string, message: string): Promise<void>;
}

function mountsOf(container: V1Container, volumes: ReadonlyMap<string, string>, pod: V1Pod): BindMount[] {
  const hostPaths = new Set((pod.spec?.volumes ?? []).filter((v) => v.hostPath).map((v) => v.name));
  return (container.volumeMounts ?? []).map((vm) => {
    const source = volumes.get(vm.name);
    if (source === undefined) throw new MountPathError(`volume ${vm.name} is not defined in the pod`);
    // Host paths are always bound read-only: the process node shares its machine.
    return {
      source: vm.subPath ? join(source, vm.subPath) : source,
      target: vm.mountPath,
      readOnly: vm.readOnly === true || hostPaths.has(vm.name),
    };
  });
}

/**
 * The image's own directories that a volume would hide (an emptyDir on /tmp over a cache kept
 * under /tmp, say), bound again over it: in a real image they are the image's files, which no
 * volume of the Pod replaces.
 */
export function imageDirsShadowed(dirs: readonly string[], mounts: readonly BindMount[]): BindMount[] {
  const under = (dir: string, target: string): boolean =>
    dir === target || dir.startsWith(`${target.replace(/\/$/, '')}/`);
  return [...new Set(dirs)]
    .filter((d) => mounts.some((m) => under(d, m.target)))
    .map((d) => ({ source: d, target: d, readOnly: true }));
}

/** Runs the container to its end; undefined when it could not be started. */
export async function launch(
  ctx: LaunchContext,
  container: V1Container,
  image: ImageEntry,
  hooks: LaunchHooks,
): Promise<Exit | undefined> {
  let proc: RunningContainer;
  try {
    const knobPath = image.aicrKnob ? await aicrKnobPath(ctx.dir, ctx.deps.knobs, image.aicrKnob.realAicr) : [];
    const imagePath = [...knobPath, ...image.path, ...ctx.driverPath];
    const env = await containerEnv(
      {
        core: ctx.deps.core,
        pod: ctx.pod,
        apiPort: ctx.deps.apiPort,
        imagePath,
        ...(image.env ? { imageEnv: image.env } : {}),
      },
      container,
    );
    const command = container.command ?? image.entrypoint;
    const argv = [...command, ...(container.args ?? [])].map((a) => expand(a, env));
    const volumeMounts = mountsOf(container, ctx.volumes, ctx.pod);
    const imageDirs = [
      ...image.path,
      ...(image.aicrKnob ? [dirname(image.aicrKnob.realAicr)] : []),
      ...(image.hostDirs ?? []),
    ];
    const layers = (image.layers ?? []).map((l) => ({ ...l, readOnly: true }));
    const mounts = [...layers, ...volumeMounts, ...imageDirsShadowed(imageDirs, volumeMounts)];
    const workingDir = container.workingDir ?? image.workingDir;
    proc = await startContainer({
      podDir: ctx.dir,
      procsDir: join(ctx.deps.stateDir, 'procs'),
      container: workingDir === undefined ? container : { ...container, workingDir },
      argv,
      env,
      mounts,
    });
  } catch (err) {
    const reason = err instanceof MountPathError ? 'CreateContainerError' : 'CreateContainerConfigError';
    await hooks.onCreateError(reason, (err as Error).message);
    return undefined;
  }
  await hooks.onStart(proc, new Date());
  return proc.exited;
}
