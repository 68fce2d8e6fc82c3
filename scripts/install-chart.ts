// Installs the control plane's chart (infra/chart) into the running test cluster with the pinned
// Helm and the test values, exactly as the tests do, and puts the test registry's docker-config
// Secret beside it, and Argo CD's repository Secret for that registry; local mode runs it before the control plane.
// AICR_LOCAL_REGISTRY_AUTH=aws runs registry.auth.mode aws against moto instead: the control
// plane mints ECR tokens there, and its token-refresh step writes Argo CD's credentials.
import { ensureChart } from '../harness/chart.ts';
import { ensureArgoCdRepoCreds, ensureRegistrySecrets } from '../harness/configuration.ts';
import { awsRegistryMode } from '../test/helpers/ecrRegistry.ts';

await ensureChart();
await ensureRegistrySecrets();
if (process.env['AICR_LOCAL_REGISTRY_AUTH'] === 'aws') await awsRegistryMode();
else await ensureArgoCdRepoCreds();
