// Checkov (SEC-10), the outside scanner, as the suite runs it: from its own venv (test/env/lib.sh,
// CHECKOV_VENV), offline (no platform key, no update check, no downloads: the machine reaches
// package registries only), with the pinned Helm for its helm framework. A finding that is
// neither fixed nor skipped in place fails the test that ran the scan.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { helmBin } from '../../harness/chart.ts';

const run = promisify(execFile);
const LIB_SH = fileURLToPath(new URL('../env/lib.sh', import.meta.url));

export interface CheckovSummary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly parsing_errors: number;
  readonly resource_count: number;
}
export interface CheckovCheck {
  readonly check_id: string;
  readonly check_name: string;
  readonly resource: string;
  readonly file_path: string;
  readonly file_line_range?: readonly number[];
  readonly check_result: { readonly suppress_comment?: string };
}
export interface CheckovReport {
  readonly check_type: string;
  readonly summary: CheckovSummary;
  readonly results: { readonly failed_checks: CheckovCheck[]; readonly skipped_checks: CheckovCheck[] };
}

let checkovPath: string | undefined;
/** Checkov in the venv bootstrap.sh makes for it. */
export function checkovBin(): string {
  checkovPath ??= execFileSync('bash', ['-c', '. "$1" && printf %s "$CHECKOV_VENV/bin/checkov"', 'lib.sh', LIB_SH], {
    encoding: 'utf8',
  });
  return checkovPath;
}

/**
 * A scan's report. Checkov exits 1 when a check fails, which the caller judges from the report;
 * with nothing to scan it prints a bare summary, returned with no results.
 */
export async function checkov(
  framework: 'cloudformation' | 'kubernetes' | 'helm',
  target: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<CheckovReport> {
  const args = [...target, '--framework', framework, '--output', 'json', '--compact'];
  const offline = ['--skip-download', '--download-external-modules', 'false', '--skip-results-upload'];
  const { stdout } = await run(checkovBin(), [...args, ...offline], {
    // Only what it needs: no platform key or URL from the caller's environment reaches it.
    env: {
      PATH: `${dirname(helmBin())}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
      HOME: process.env['HOME'] ?? '/tmp',
      CKV_SKIP_PACKAGE_UPDATE_CHECK: 'true',
      BC_SKIP_MAPPING: 'TRUE',
      ...env,
    },
    maxBuffer: 64 * 1024 * 1024,
    timeout: 180_000,
  }).catch((err: { code?: number; stdout?: string; stderr?: string }) => {
    if (err.code === 1 && err.stdout) return { stdout: err.stdout };
    throw new Error(`checkov --framework ${framework} failed: ${err.stderr ?? String(err)}`, { cause: err });
  });
  const report = JSON.parse(stdout) as CheckovReport | CheckovSummary;
  if ('summary' in report) return report;
  return { check_type: framework, summary: report, results: { failed_checks: [], skipped_checks: [] } };
}

/** Each failure on a line of its own: check, resource, file and lines, what the check asks. */
export function describeFailures(report: CheckovReport): string {
  return report.results.failed_checks
    .map((c) => `${c.check_id} ${c.resource} ${c.file_path}:${(c.file_line_range ?? []).join('-')} ${c.check_name}`)
    .join('\n');
}

/** docs/security.md's section on the outside scanners: the table of what is skipped and why. */
function scannerSection(): string {
  const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
  return /^## Outside scanners[^\n]*\n([\s\S]*?)(?=^#{1,2} )/m.exec(`${doc}\n# end`)?.[1] ?? '';
}

/**
 * No finding left: each check passes or is skipped in place with a reason that docs/security.md
 * lists. A scan that read nothing (a chart Helm would not render, say) fails too, not passes.
 */
export function assertClean(report: CheckovReport, what: string, resources: number): void {
  const { summary } = report;
  assert.equal(summary.parsing_errors, 0, `${what}: Checkov could not read it`);
  assert.equal(summary.resource_count, resources, `${what}: Checkov scanned ${summary.resource_count} resources`);
  assert.ok(summary.passed > 0, `${what}: no check passed, so none ran`);
  assert.equal(summary.failed, 0, `${what}: Checkov findings neither fixed nor skipped:\n${describeFailures(report)}`);
  const documented = scannerSection();
  for (const c of report.results.skipped_checks) {
    const reason = c.check_result.suppress_comment ?? '';
    assert.ok(
      reason.length > 20 && reason !== 'No comment provided',
      `${what}: ${c.check_id} on ${c.resource} says why`,
    );
    assert.ok(documented.includes(`\`${c.check_id}\``), `${what}: docs/security.md lists skipped ${c.check_id}`);
  }
}
