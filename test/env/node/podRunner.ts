// One Pod on the process node, from bound to gone: pull (look up the image table), prepare
// volumes, run init containers in order and then the containers, restart them per the Pod's
// restartPolicy, enforce activeDeadlineSeconds, and on deletion stop the processes (SIGTERM,
// SIGKILL after the grace period) and release the Pod object, as a kubelet does.
import { join } from 'node:path';
import { rm } from 'node:fs/promises';
import type { CoreV1Api, V1Container, V1Pod } from '@kubernetes/client-node';
import { type ImageTable, fullReference, imageId, lookupImage } from './images.ts';
import { type ContainerView, type PullCause, podStatus, pullFailure, waiting } from './podStatus.ts';
import { pullCredentials, registryAnswer } from './pullAuth.ts';
import { materialiseVolumes } from './volumes.ts';
import { StatusWriter } from './statusWriter.ts';
import { launch } from './launch.ts';
import type { RunningContainer } from './runContainer.ts';
import { type GpuFacts, provideNvidiaSmi } from './gpus.ts';
import { type KnobPaths, type NodeKnob, readNodeKnobs } from '../knobFiles.ts';

export interface NodeDeps {
  readonly core: CoreV1Api;
  readonly images: ImageTable;
  readonly stateDir: string;
  readonly apiPort: string;
  /** The private registries' accounts (htpasswd, {SHA} hashes). */
  readonly htpasswd: string;
  /** The test knobs' control files, read at each Pod and container start. */
  readonly knobs: KnobPaths;
  readonly log: (msg: string) => void;
}

/** What the process node knows of the Node a Pod runs on. */
export interface NodeFacts {
  readonly osRelease: string;
  /** Simulated GPUs: Pods on this Node find the stand-in nvidia-smi on their PATH. */
  readonly gpus?: GpuFacts;
}

const PULL_BACKOFF_MS = 1000;
// About a minute of retries before a volume failure is final.
const PREPARE_ATTEMPTS = 35;

const sameImage = (a: string, b: string): boolean => fullReference(a) === fullReference(b);

/** TEST KNOB: while a hold on the Pod's namespace is in force, its containers stay in ContainerCreating. */
async function heldPulls(knobPaths: KnobPaths, namespace: string, stopping: () => boolean): Promise<void> {
  const held = (knobs: readonly NodeKnob[]): boolean =>
    knobs.some((k) => k.kind === 'hold' && k.namespace === namespace);
  while (!stopping() && held(await readNodeKnobs(knobPaths))) await new Promise((r) => setTimeout(r, 250));
}

/** TEST KNOB: a slow pull keeps the containers in ContainerCreating for the longest delay that applies. */
async function slowPulls(knobs: readonly NodeKnob[], images: readonly string[]): Promise<void> {
  const delays = knobs.map((k) =>
    k.kind === 'slow-start' && (k.image === undefined || images.some((i) => sameImage(i, k.image ?? '')))
      ? k.delayMs
      : 0,
  );
  const delayMs = Math.max(0, ...delays);
  if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
}

export class PodRunner {
  private readonly deps: NodeDeps;
  private pod: V1Pod;
  private readonly node: NodeFacts;
  private readonly init: ContainerView[];
  private readonly main: ContainerView[];
  private readonly running = new Map<string, RunningContainer>();
  private readonly writer: StatusWriter;
  private readonly dir: string;
  private readonly startTime = new Date();
  private prepared = false;
  private failure: { reason: string; message: string } | undefined;
  private stopping = false;
  private deadline: NodeJS.Timeout | undefined;

  constructor(deps: NodeDeps, pod: V1Pod, node: NodeFacts) {
    this.deps = deps;
    this.pod = pod;
    this.node = node;
    const view = (c: V1Container): ContainerView => ({
      name: c.name,
      image: c.image ?? '',
      imageID: '',
      containerID: '',
      state: waiting('ContainerCreating'),
      restartCount: 0,
    });
    this.init = (pod.spec?.initContainers ?? []).map((c) => ({ ...view(c), state: waiting('PodInitializing') }));
    this.main = (pod.spec?.containers ?? []).map(view);
    if (this.init.length > 0) this.main.forEach((c, i) => (this.main[i] = { ...c, state: waiting('PodInitializing') }));
    this.dir = join(deps.stateDir, 'pods', pod.metadata?.uid ?? 'unknown');
    this.writer = new StatusWriter(deps.core, pod, (latest) => podStatus(latest, this.view(), new Date()));
  }

  private view(): Parameters<typeof podStatus>[1] {
    return {
      init: this.init,
      main: this.main,
      startTime: this.startTime,
      prepared: this.prepared,
      ...(this.failure ? { failure: this.failure } : {}),
    };
  }

  private get key(): string {
    return `${this.pod.metadata?.namespace}/${this.pod.metadata?.name}`;
  }

  /** Runs the Pod to its end; never rejects. */
  async run(): Promise<void> {
    try {
      await this.writer.write();
      if (!(await this.pullAll())) return;
      await this.prepare();
      this.armDeadline();
      if (await this.runInit()) await this.runMain();
    } catch (err) {
      this.deps.log(`pod ${this.key}: ${(err as Error).message}`);
    } finally {
      if (this.deadline) clearTimeout(this.deadline);
      await this.writer.write().catch(() => undefined);
    }
  }

  /** Why this image cannot be pulled for this Pod, or undefined when it can. */
  private async pullProblem(image: string, knobs: readonly NodeKnob[]): Promise<PullCause | undefined> {
    const entry = lookupImage(this.deps.images, image);
    if (!entry) return 'not-found';
    const forced = knobs.find((k) => k.kind === 'pull-failure' && sameImage(k.image, image));
    if (forced?.kind === 'pull-failure') return forced.cause;
    if (!entry.privateRegistry) return undefined;
    const answer = await registryAnswer(this.deps.htpasswd, await pullCredentials(this.deps.core, this.pod, image));
    return answer === 'ok' ? undefined : answer;
  }

  private async pullAll(): Promise<boolean> {
    const all = [...this.init, ...this.main];
    const knobs = await readNodeKnobs(this.deps.knobs);
    const failed: { view: ContainerView; cause: PullCause }[] = [];
    for (const view of all) {
      const cause = await this.pullProblem(view.image, knobs);
      if (cause) failed.push({ view, cause });
    }
    if (failed.length === 0) {
      await slowPulls(
        knobs,
        all.map((v) => v.image),
      );
      await heldPulls(this.deps.knobs, this.pod.metadata?.namespace ?? '', () => this.stopping);
      return !this.stopping;
    }
    for (const { view, cause } of failed) Object.assign(view, { state: pullFailure(view.image, false, cause) });
    await this.writer.write();
    await new Promise((r) => setTimeout(r, PULL_BACKOFF_MS));
    for (const { view, cause } of failed) Object.assign(view, { state: pullFailure(view.image, true, cause) });
    await this.writer.write();
    return false;
  }

  /**
   * Volumes may name objects that appear moments later (the namespace's kube-root-ca.crt,
   * a ConfigMap created after the Pod); like the kubelet, keep trying while the Pod lives.
   */
  private async prepare(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        this.volumes = await materialiseVolumes({
          core: this.deps.core,
          pod: this.pod,
          dir: this.dir,
          osRelease: this.node.osRelease,
        });
        if (this.node.gpus) this.driverPath = [await provideNvidiaSmi(this.dir, this.node.gpus)];
        this.prepared = true;
        return;
      } catch (err) {
        if (this.stopping || attempt >= PREPARE_ATTEMPTS) throw err;
        await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** attempt)));
      }
    }
  }

  private volumes = new Map<string, string>();
  private driverPath: string[] = [];

  private armDeadline(): void {
    const seconds = this.pod.spec?.activeDeadlineSeconds;
    if (seconds === undefined) return;
    this.deadline = setTimeout(
      () => {
        this.failure = {
          reason: 'DeadlineExceeded',
          message: `Pod was active on the node longer than the specified deadline`,
        };
        this.stopAll(0);
      },
      seconds * 1000 - (Date.now() - this.startTime.getTime()),
    );
  }

  private async runInit(): Promise<boolean> {
    const specs = this.pod.spec?.initContainers ?? [];
    for (const [i, spec] of specs.entries()) {
      const ok = await this.runOne(spec, this.init, i, true);
      if (!ok || this.stopping || this.failure) return false;
    }
    return true;
  }

  private async runMain(): Promise<void> {
    const specs = this.pod.spec?.containers ?? [];
    await Promise.all(specs.map((spec, i) => this.runOne(spec, this.main, i)));
  }

  /** Runs one container until it ends for good; true when it succeeded. */
  private async runOne(spec: V1Container, views: ContainerView[], index: number, init = false): Promise<boolean> {
    for (let createAttempt = 0; ;) {
      const exitCode = await this.runOnce(spec, views, index);
      if (exitCode === 'create-error') {
        // Like the kubelet: a container whose config cannot be made yet (a Secret or ConfigMap
        // its environment names does not exist yet) is tried again while the Pod lives.
        if (this.stopping || this.failure) return false;
        await new Promise((r) => setTimeout(r, Math.min(5000, 250 * 2 ** createAttempt++)));
        continue;
      }
      if (exitCode === undefined) return false;
      // An init container that succeeded is done, whatever the Pod's restartPolicy.
      if ((init && exitCode === 0) || !this.restarts(exitCode)) return exitCode === 0;
      const current = views[index] as ContainerView;
      // The kubelet's crash-loop back-off, shortened: 1 s doubling to 10 s.
      await new Promise((r) => setTimeout(r, Math.min(10_000, 1000 * 2 ** current.restartCount)));
      views[index] = { ...current, restartCount: current.restartCount + 1 };
    }
  }

  private restarts(exitCode: number): boolean {
    const policy = this.pod.spec?.restartPolicy ?? 'Always';
    if (this.stopping || this.failure) return false;
    return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
  }

  /** One run of a container; its exit code, 'create-error' when it could not be created, or undefined when it may not start. */
  private async runOnce(
    spec: V1Container,
    views: ContainerView[],
    index: number,
  ): Promise<number | 'create-error' | undefined> {
    const entry = lookupImage(this.deps.images, spec.image ?? '');
    const before = views[index] as ContainerView;
    if (!entry || this.stopping || this.failure) return undefined;
    const exit = await launch(
      { deps: this.deps, pod: this.pod, dir: this.dir, volumes: this.volumes, driverPath: this.driverPath },
      spec,
      entry,
      {
        onStart: async (proc, startedAt) => {
          this.running.set(spec.name, proc);
          views[index] = {
            ...before,
            imageID: await imageId(spec.image ?? '', entry),
            containerID: `process://${proc.pid}`,
            state: { running: { startedAt } },
          };
          await this.writer.write();
        },
        onCreateError: async (reason, message) => {
          views[index] = { ...before, state: waiting(reason, message) };
          await this.writer.write();
        },
      },
    );
    this.running.delete(spec.name);
    if (!exit) return 'create-error';
    const current = views[index] as ContainerView;
    const terminated = {
      exitCode: exit.exitCode,
      reason: exit.exitCode === 0 ? 'Completed' : 'Error',
      startedAt: current.state.running?.startedAt ?? new Date(),
      finishedAt: new Date(),
      containerID: current.containerID,
      ...(exit.message ? { message: exit.message } : {}),
    };
    views[index] = { ...current, state: { terminated } };
    await this.writer.write();
    return exit.exitCode;
  }

  /** The Pod was updated; a deletion timestamp means stop within the grace period. */
  update(pod: V1Pod): void {
    this.pod = { ...this.pod, metadata: pod.metadata ?? {} };
    if (pod.metadata?.deletionTimestamp && !this.stopping) {
      const grace = pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
      this.stopAll(grace);
    }
  }

  /** SIGTERM now, SIGKILL after `graceSeconds`. */
  stopAll(graceSeconds: number): void {
    this.stopping = true;
    for (const proc of this.running.values()) proc.signal(graceSeconds > 0 ? 'SIGTERM' : 'SIGKILL');
    if (graceSeconds > 0)
      setTimeout(() => this.running.forEach((p) => p.signal('SIGKILL')), graceSeconds * 1000).unref();
  }

  /** Stops the processes and resolves once they have exited. */
  async halt(graceSeconds: number): Promise<void> {
    const exits = [...this.running.values()].map((p) => p.exited);
    this.stopAll(graceSeconds);
    await Promise.all(exits);
  }

  /** Drops the Pod's directory once the Pod is gone from the API. */
  async forget(): Promise<void> {
    this.stopAll(0);
    await rm(this.dir, { recursive: true, force: true });
  }
}
