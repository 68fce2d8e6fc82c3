// AICR's validation report (CTRF JSON): the summary and each check with its status. The control
// plane reads it to tell checks that failed (the rollout fails, naming them) from a run that
// broke before it could report (an internal failure).
import * as z from 'zod';
import type { Collected } from './runStage.ts';

const TestSchema = z.looseObject({
  name: z.string(),
  status: z.string(),
  message: z.string().optional(),
  suite: z.array(z.string()).optional(),
});

const ReportSchema = z.looseObject({
  results: z.looseObject({
    summary: z.looseObject({
      tests: z.int(),
      passed: z.int(),
      failed: z.int(),
      skipped: z.int().optional(),
      other: z.int().optional(),
    }),
    tests: z.array(TestSchema).default([]),
  }),
});

export interface CheckResult {
  readonly name: string;
  readonly status: string;
  readonly phase: string | undefined;
  readonly message: string | undefined;
}

export interface ValidationReport {
  readonly tests: number;
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly other: number;
  readonly checks: readonly CheckResult[];
}

/** Checks that did not pass or skip: failed, or ended `other` (a crash, a deadline). */
export function failedChecks(report: ValidationReport): CheckResult[] {
  return report.checks.filter((c) => c.status !== 'passed' && c.status !== 'skipped');
}

export function reportPassed(report: ValidationReport): boolean {
  return report.failed === 0 && report.other === 0 && failedChecks(report).length === 0;
}

/** One line per failed check: its name and the first line of AICR's message about it. */
export function describeFailures(report: ValidationReport): string {
  return failedChecks(report)
    .map((c) => `${c.name} (${c.status})${c.message ? `: ${c.message.split('\n')[0] ?? ''}` : ''}`)
    .join('; ');
}

export function parseReport(text: string | undefined): Collected<ValidationReport> {
  if (text === undefined || text.trim() === '') return { ok: false, problem: 'aicr validate wrote no CTRF report' };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return { ok: false, problem: `the CTRF report is not JSON: ${(err as Error).message}` };
  }
  const parsed = ReportSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      problem:
        'the CTRF report does not read as one: ' +
        `${issue ? `${issue.path.join('.')} ${issue.message}` : 'unknown shape'}`,
    };
  }
  const { summary, tests } = parsed.data.results;
  const checks = tests.map((t) => ({ name: t.name, status: t.status, phase: t.suite?.[0], message: t.message }));
  return {
    ok: true,
    output: {
      tests: summary.tests,
      passed: summary.passed,
      failed: summary.failed,
      skipped: summary.skipped ?? 0,
      other: summary.other ?? 0,
      checks,
    },
  };
}
