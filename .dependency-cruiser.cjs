// Import rules the lint enforces (npm run lint): no import circles, no module importing a layer
// above its own (the harness sits below both the tests and the bench), and the rollout step's
// decision and the pure rollout rules kept free of I/O.
const PURE = [
  '^shared/steps/rollout/(state|stateKinds|actions|settings)\\.ts$',
  '^shared/rollouts/(assess|gate|progress|drift|approval|missingReleases|schemaVersions|chartPins|maintenanceSpec|maintenanceWindows|cronSchedule|syncWindows)\\.ts$',
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
        'shared/ is what the functions, the CLI, the bench and the tests are built from; it never imports them, nor the harness that drives the test environment for the last two.',
      from: { path: '^shared/' },
      to: { path: '^(functions|cli|harness|bench|scripts|test)/' },
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
          '^shared/(kube|plans|rollouts|configuration|oci|aicr|status|observability|registry|validation|discovery|events|notifications|queue)/',
          '^shared/(errors|classify|deadline|durations|httpFetch|timings)\\.ts$',
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
