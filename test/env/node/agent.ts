// The process node's control loop: it keeps the set of Nodes it serves (those labelled as
// process nodes) and a runner per Pod bound to one of them, and releases deleted Pods.
import {
  type CoreV1Api,
  type KubeConfig,
  type V1Node,
  type V1Pod,
  makeInformer,
  type Informer,
  type ObjectCache,
} from '@kubernetes/client-node';
import { OS_RELEASE_ANNOTATION, PROCESS_NODE_LABEL } from './nodeShapes.ts';
import { type NodeDeps, type NodeFacts, PodRunner } from './podRunner.ts';
import { gpuFactsOf } from './gpus.ts';

const finished = (pod: V1Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

function identify(pod: V1Pod): { uid: string; node: string } {
  return { uid: pod.metadata?.uid ?? '', node: pod.spec?.nodeName ?? '' };
}

export class ProcessNodeAgent {
  private readonly core: CoreV1Api;
  private readonly deps: NodeDeps;
  private readonly nodes = new Map<string, NodeFacts>();
  private readonly runners = new Map<string, PodRunner>();
  private readonly done = new Set<string>();
  private readonly podInformer: Informer<V1Pod> & ObjectCache<V1Pod>;
  private readonly nodeInformer: Informer<V1Node> & ObjectCache<V1Node>;

  constructor(kc: KubeConfig, core: CoreV1Api, deps: NodeDeps) {
    this.core = core;
    this.deps = deps;
    this.nodeInformer = makeInformer(
      kc,
      `/api/v1/nodes?labelSelector=${PROCESS_NODE_LABEL}%3Dtrue`,
      () => core.listNode({ labelSelector: `${PROCESS_NODE_LABEL}=true` }),
      `${PROCESS_NODE_LABEL}=true`,
    );
    this.podInformer = makeInformer(kc, '/api/v1/pods', () => core.listPodForAllNamespaces());
    const onNode = (node: V1Node): void => {
      const gpus = gpuFactsOf(node);
      this.nodes.set(node.metadata?.name ?? '', {
        osRelease: node.metadata?.annotations?.[OS_RELEASE_ANNOTATION] ?? '',
        ...(gpus ? { gpus } : {}),
      });
      for (const pod of this.podInformer.list()) this.onPod(pod);
    };
    this.nodeInformer.on('add', onNode);
    this.nodeInformer.on('update', onNode);
    this.nodeInformer.on('delete', (node) => this.nodes.delete(node.metadata?.name ?? ''));
    this.podInformer.on('add', (pod) => this.onPod(pod));
    this.podInformer.on('update', (pod) => this.onPod(pod));
    this.podInformer.on('delete', (pod) => this.onGone(pod));
    for (const informer of [this.nodeInformer, this.podInformer]) {
      informer.on('error', () => setTimeout(() => void informer.start(), 1000));
    }
  }

  uidOf(namespace: string, name: string): string | undefined {
    return this.podInformer.get(name, namespace)?.metadata?.uid;
  }

  isRunning(uid: string): boolean {
    return this.runners.has(uid);
  }

  async start(): Promise<void> {
    await this.nodeInformer.start();
    await this.podInformer.start();
  }

  private onPod(pod: V1Pod): void {
    const { uid, node } = identify(pod);
    if (!this.nodes.has(node)) return;
    const runner = this.runners.get(uid);
    if (runner) return runner.update(pod);
    const over = finished(pod) || this.done.has(uid);
    if (over && pod.metadata?.deletionTimestamp) return void this.release(pod);
    if (over) return;
    const started = new PodRunner(this.deps, pod, this.nodes.get(node) ?? { osRelease: '' });
    this.runners.set(uid, started);
    void started.run().then(() => this.afterRun(uid));
  }

  private afterRun(uid: string): void {
    this.runners.delete(uid);
    this.done.add(uid);
    const latest = this.podInformer.list().find((p) => p.metadata?.uid === uid);
    if (latest?.metadata?.deletionTimestamp) void this.release(latest);
  }

  /** What a kubelet does once a deleted Pod's containers are gone: delete it for good. */
  private async release(pod: V1Pod): Promise<void> {
    const meta = pod.metadata ?? {};
    try {
      // The grace period goes in the body: with a body, the API server ignores query parameters,
      // and a second graceful delete of a Pod already being deleted changes nothing.
      await this.core.deleteNamespacedPod({
        name: meta.name ?? '',
        namespace: meta.namespace ?? '',
        body: { gracePeriodSeconds: 0, preconditions: { uid: meta.uid ?? '' } },
      });
    } catch (err) {
      const code = (err as { code?: number }).code;
      if (code !== 404 && code !== 409)
        this.deps.log(`releasing pod ${meta.namespace}/${meta.name}: ${(err as Error).message}`);
    }
  }

  private onGone(pod: V1Pod): void {
    const uid = pod.metadata?.uid ?? '';
    const runner = this.runners.get(uid);
    this.runners.delete(uid);
    this.done.delete(uid);
    void (runner ?? new PodRunner(this.deps, pod, { osRelease: '' })).forget();
  }

  /** Stops every Pod's processes (SIGKILL after 2 s) and waits for them: the node is going away. */
  async stop(): Promise<void> {
    await this.podInformer.stop();
    await this.nodeInformer.stop();
    await Promise.all([...this.runners.values()].map((runner) => runner.halt(2)));
  }
}
