// Installs the control plane's chart (infra/chart) into the running test cluster with the pinned
// Helm and the test values, exactly as the tests do, and puts the test registry's docker-config
// Secret beside it, and Argo CD's repo-creds for that registry; local mode runs it before the control plane.
import { ensureChart } from '../test/helpers/chart.ts';
import { ensureArgoCdRepoCreds, ensureRegistrySecrets } from '../test/helpers/configuration.ts';

await ensureChart();
await ensureRegistrySecrets();
await ensureArgoCdRepoCreds();
