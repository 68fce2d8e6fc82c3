// SEC-10: Checkov, the outside scanner, finds nothing on the control plane's chart, both as
// rendered (its kubernetes framework) and as Helm renders it itself (its helm framework). Each
// finding is fixed in the chart or skipped on the object with its reason (a checkov.io/skip
// annotation), which docs/security.md lists. The packaged template's scan is in
// serverless.template.test.ts, which packages it once for all its checks. Needs no cluster.
import { test } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CHART } from '../../shared/api/constants.ts';
import { CHART_DIR } from '../../infra/chartPaths.ts';
import { helm } from '../../harness/chart.ts';
import { assertClean, checkov } from '../helpers/checkov.ts';

test('SEC-10 Checkov finds nothing on the chart, rendered or through Helm: each finding is fixed or skipped in place with its reason', async () => {
  // The default values, in the namespace the chart requires, as an operator installs it.
  const rendered = await helm('template', CHART.release, CHART_DIR, '-n', CHART.namespace);
  const objects = parseAllDocuments(rendered).filter((d) => d.contents !== null).length;
  const dir = mkdtempSync(join(tmpdir(), 'aicr-checkov-'));
  writeFileSync(join(dir, 'chart.yaml'), rendered);
  const [kubernetes, chart] = await Promise.all([
    checkov('kubernetes', ['-d', dir]),
    // Checkov runs `helm template` itself, in the namespace Helm's own variable names.
    checkov('helm', ['-d', CHART_DIR], { HELM_NAMESPACE: CHART.namespace }),
  ]);
  assertClean(kubernetes, 'the rendered chart', objects);
  assertClean(chart, 'the chart through Helm', objects);
});
