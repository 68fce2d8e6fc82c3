// KROP-1: the troubleshooting guide is written symptom → cause → fix with concrete kubectl checks.
// Every reason that stalls a runtime links from its row to an entry that names it, tells its
// cause before its fix, and gives a kubectl check in a code block (krop1.runbookChecks runs them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { codeCommands, stallEntries } from '../helpers/troubleshooting.ts';

const CAUSE = /\*\*?Cause|\*Cause/;
const FIX = /\*\*?Fix|\*Fix/;
/** A kubectl command a person can run as printed: a verb the entry's check really uses, not a word in prose. */
const KUBECTL_CHECK = /^\s*(?:\$ )?kubectl (?:get|describe|logs|auth can-i|aicr|-n \S+ (?:get|describe|logs))\b/m;

/** Where the cause and the fix are told about this reason: in its own part of the entry when there is one. */
function order(part: string, entry: string): { cause: number | undefined; fix: number | undefined } {
  const within = CAUSE.exec(part) && FIX.exec(part) ? part : entry;
  return { cause: CAUSE.exec(within)?.index, fix: FIX.exec(within)?.index };
}

/**
 * What an entry lacks to be symptom → cause → fix for this reason: the reason named (so the row
 * does not link to an entry about something else); a cause, then a fix; and a kubectl command
 * inside a code block, not only mentioned in prose.
 */
function entryProblems(reason: string, link: string, entry: string): string[] {
  const problems: string[] = [];
  const at = entry.indexOf(`\`${reason}\``);
  if (at < 0 && !entry.includes(reason))
    problems.push(
      `${reason}: entry #${link} never names the reason, so its row links to an entry about something else`,
    );
  const { cause, fix } = order(at < 0 ? entry : entry.slice(at), entry);
  if (cause === undefined) problems.push(`${reason}: entry #${link} has no cause`);
  if (fix === undefined) problems.push(`${reason}: entry #${link} has no fix`);
  if (cause !== undefined && fix !== undefined && fix < cause)
    problems.push(`${reason}: entry #${link} gives the fix before the cause`);
  if (!codeCommands(entry).some((c) => KUBECTL_CHECK.test(c)))
    problems.push(`${reason}: entry #${link} has no kubectl check in a code block`);
  return problems;
}

test('KROP-1 every reason that stalls a runtime links to an entry that names it and gives its cause before its fix and a kubectl check in a code block', () => {
  const problems: string[] = [];
  for (const { reason, link, entry } of stallEntries()) {
    if (!link || !entry) {
      problems.push(`${reason}: its row links to no entry (${link ?? 'no link'})`);
      continue;
    }
    problems.push(...entryProblems(reason, link, entry));
  }
  assert.deepEqual(problems, []);
});
