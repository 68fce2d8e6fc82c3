// The layers of shared/, ground floor first: a module imports only modules of its own layer and
// of the layers before it, never of one after it. .dependency-cruiser.cjs makes a lint rule of
// each layer, docs/architecture.md's Layout table shows the same layers in the same order, and a
// unit test (test/unit/layers.test.ts) fails when the table, this list and shared/ disagree.
// A part is a folder of shared/ (`name/`, everything under it) or a top-level module (`name.ts`);
// a floor names a run of neighbouring layers, as the table does.
module.exports = [
  { floor: 'ground floor', parts: ['api/'] },
  {
    floor: 'ground floor',
    parts: [
      'errors.ts',
      'classify.ts',
      'deadline.ts',
      'timings.ts',
      'httpFetch.ts',
      'boundedMemory.ts',
      'awsRequestTimeouts.ts',
      'awsErrorCause.ts',
    ],
  },
  { floor: 'access', parts: ['kube/'] },
  { floor: 'access', parts: ['observability/', 'events/'] },
  { floor: 'access', parts: ['queue/'] },
  { floor: 'domain', parts: ['status/'] },
  { floor: 'domain', parts: ['configuration/', 'discovery/'] },
  { floor: 'domain', parts: ['aicr/'] },
  { floor: 'domain', parts: ['oci/', 'registry/'] },
  { floor: 'domain', parts: ['plans/'] },
  { floor: 'domain', parts: ['look/'] },
  { floor: 'domain', parts: ['rollout/'] },
  { floor: 'domain', parts: ['notifications/'] },
  { floor: 'steps', parts: ['steps/'] },
  { floor: 'wiring', parts: ['forwarder/', 'sweeper/'] },
  { floor: 'wiring', parts: ['rbac/'] },
  { floor: 'wiring', parts: ['aws/', 'local/'] },
];
