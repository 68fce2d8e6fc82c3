// Import rules the lint enforces (npm run lint): no import circles, no module importing a layer
// above its own, and the rollout step's decision and the pure rollout rules kept free of I/O.
const PURE = ['^shared/rollout/rules/'];

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
      comment: 'shared/ is what the functions, the CLI, the bench and the tests are built from; it never imports them.',
      from: { path: '^shared/' },
      to: { path: '^(functions|cli|bench|scripts|test)/' },
    },
    {
      name: 'api-is-the-ground-floor',
      severity: 'error',
      comment: 'The API (schemas, constants) imports nothing else of the product.',
      from: { path: '^shared/api/' },
      to: { path: '^shared/', pathNot: '^shared/api/' },
    },
    {
      name: 'domain-below-steps',
      severity: 'error',
      comment:
        'Kubernetes access, status, metrics, AICR runs, registries, plans and the rollout rules are used by the steps, never the other way round; only the wiring (aws, local, forwarder, rbac, environment) reads the step table.',
      from: {
        path: [
          '^shared/(kube|plans|rollout|look|configuration|oci|aicr|status|observability|registry|discovery|events|notifications|queue)/',
          '^shared/(errors|classify|deadline|httpFetch|timings)\\.ts$',
        ],
      },
      to: { path: '^shared/steps/' },
    },
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
        'The decision and the rollout rules are pure: they are given what a look read, and never reach the Kubernetes port.',
      from: { path: PURE },
      to: { path: '^shared/(kube/(port|client|rest)|events/recorder|configuration/read)\\.ts$' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
