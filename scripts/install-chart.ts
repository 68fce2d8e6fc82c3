// Installs the control plane's chart (infra/chart) into the running test cluster with the pinned
// Helm and the test values, exactly as the tests do; local mode runs it before the control plane.
import { ensureChart } from '../test/helpers/chart.ts';

await ensureChart();
