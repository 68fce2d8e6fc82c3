// Import rules the lint enforces (npm run lint): no import circles, no module of shared/ importing a
// layer after its own (layers.cjs, the same list as docs/architecture.md's Layout table), and the
// rollout step's decision and the pure rollout rules kept free of I/O.
const LAYERS = require('./layers.cjs');

/** A part of layers.cjs as a path pattern: a folder and everything under it, or one top-level module. */
const partPattern = (part) => (part.endsWith('/') ? `^shared/${part}` : `^shared/${part.replace(/\./g, '\\.')}$`);
const layerPatterns = (layer) => layer.parts.map(partPattern);

/** One rule per layer: none of its modules imports a module of a layer after it. */
const layerRules = LAYERS.slice(0, -1).map((layer, i) => ({
  name: `layer-${i + 1}-imports-nothing-above-it`,
  severity: 'error',
  comment: `${layer.parts.join(', ')} (${layer.floor}) import only their own layer and the layers before it in layers.cjs; move the shared word down, or the module to the layer it belongs to.`,
  from: { path: layerPatterns(layer) },
  to: { path: LAYERS.slice(i + 1).flatMap(layerPatterns) },
}));

// The files that do no I/O: given what a look read and the clock, they decide. The rollout wing
// keeps them in rollout/rules/; the API's schemas and words are pure as well.
const PURE = ['^shared/rollout/rules/', '^shared/api/'];

// What a pure file may not import, type-only imports included: a file that names a port is
// handed one to call.
const DOES_IO = [
  '^shared/kube/(port|client|rest|eks|eksDescribe|eksToken|fromKubeconfig|kubeconfig)\\.ts$',
  '^shared/events/recorder\\.ts$',
  '^shared/httpFetch\\.ts$',
  '^shared/oci/(registryHttp|pull|push|chartCopy|credentials)\\.ts$',
  '^shared/configuration/read\\.ts$',
  '^shared/status/writeStatus\\.ts$',
  '^shared/queue/(port|embedded)\\.ts$',
  '^shared/notifications/(sink|eventBridge)\\.ts$',
  '^shared/registry/',
  '^shared/aws(RequestTimeouts|ErrorCause)\\.ts$',
  'node_modules/(@aws-sdk|@aws-crypto|@smithy|@kubernetes/client-node|@middy|@aws-lambda-powertools)/',
  '^(node:)?(fs|fs/promises|child_process|net|http|https|http2|dgram|dns|tls|worker_threads|timers|timers/promises)$',
];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle: move the shared word down to a module both can import.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'shared-stays-below-entry-points',
      severity: 'error',
      comment:
        'shared/ is what the functions, the CLI, the generators, the bench and the tests are built from; it never imports them, nor the harness that drives the test environment for the last two.',
      from: { path: '^shared/' },
      to: { path: '^(functions|cli|harness|bench|scripts|test|infra)/' },
    },
    {
      name: 'harness-serves-tests-and-bench',
      severity: 'error',
      comment:
        'harness/ drives the test environment for the tests and the bench alike, so it imports neither: what only tests use stays in test/helpers/.',
      from: { path: '^harness/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'bench-reaches-tests-through-the-harness',
      severity: 'error',
      comment: 'The bench shares helpers with the tests through harness/ only; it never imports test/.',
      from: { path: '^bench/' },
      to: { path: '^test/' },
    },
    {
      name: 'shared-modules-have-a-layer',
      severity: 'error',
      comment: 'A module of shared/ that no layer of layers.cjs names: place it in one (and in the Layout table).',
      from: { path: '^shared/' },
      to: { path: '^shared/', pathNot: LAYERS.flatMap(layerPatterns) },
    },
    ...layerRules,
    {
      name: 'rollout-step-is-its-own',
      severity: 'error',
      comment:
        "The rollout step's modules are reached through its runner (index.ts) and its row's parts (rbac.ts, aws.ts) only.",
      from: { path: '^shared/', pathNot: '^shared/steps/rollout/' },
      to: { path: '^shared/steps/rollout/', pathNot: '^shared/steps/rollout/(index|rbac|aws)\\.ts$' },
    },
    {
      name: 'pure-rules-do-no-io',
      severity: 'error',
      comment:
        'The decision and the rollout rules are pure: they are given what a look read and the clock, and reach no cluster, registry, AWS, file, network or timer.',
      from: { path: PURE },
      to: { path: DOES_IO },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
