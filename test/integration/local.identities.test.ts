// Local mode as `npm start` runs it (shared/local/main.ts, a process of its own, given the
// kubeconfig and context start.sh gives it): the forwarder and each step talk to the API server
// as their own identity, impersonated by the context's user, so what holds on EKS holds here
// (the chart's RBAC, and the plan admission policy that admits plans from the resolve identity only).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { CONDITION, IDENTITY_GROUP, IDENTITY_USER, KINDS } from '../../shared/api/constants.ts';
import { STEP_TABLE } from '../../shared/steps/table.ts';
import { type AuditEvent, auditMark, controlPlaneEventsSince } from '../../harness/audit.ts';
import { CONTROL_PLANE_USER, testEnv } from '../../harness/env.ts';
import { resolvedWith } from '../helpers/resolved.ts';
import { createRuntime, deleteRuntime, ensureCrds } from '../../harness/runtime.ts';
import { ROOT } from '../../harness/sls.ts';

/** The group each identity's requests must carry, by impersonated user name. */
const GROUP_OF: ReadonlyMap<string, string> = new Map([
  [IDENTITY_USER.forwarder, IDENTITY_GROUP.forwarder],
  ...STEP_TABLE.map((r): [string, string] => [IDENTITY_USER.step(r.name), IDENTITY_GROUP.step(r.name)]),
]);

function startMain(): { child: ChildProcess; output: () => string } {
  const args = ['shared/local/main.ts', '--kubeconfig', testEnv().KUBECONFIG, '--context', CONTROL_PLANE_USER];
  const child = spawn(join(ROOT, 'node_modules/.bin/node'), args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout?.on('data', (c: Buffer) => (text += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (text += c.toString()));
  return { child, output: () => text };
}

/** How many requests each identity made; fails on one made as the context's own user, or refused. */
function requestsByIdentity(events: readonly AuditEvent[]): Map<string, number> {
  const byUser = new Map<string, number>();
  for (const e of events) {
    const as = e.impersonatedUser?.username ?? '';
    assert.ok(
      GROUP_OF.has(as),
      `${e.verb} ${e.requestURI} is made as a function's identity, not as ${CONTROL_PLANE_USER} itself`,
    );
    assert.ok(e.impersonatedUser?.groups?.includes(GROUP_OF.get(as) ?? ''), `${as} carries its own group`);
    assert.ok(![401, 403].includes(e.responseStatus?.code ?? 0), `${as}: ${e.verb} ${e.requestURI} allowed`);
    byUser.set(as, (byUser.get(as) ?? 0) + 1);
  }
  return byUser;
}

before(async () => {
  await ensureCrds();
  await deleteRuntime();
});
after(deleteRuntime);

test('local mode runs the forwarder and each step as its own identity, and resolves the runtime that way', async () => {
  const mark = auditMark();
  const main = startMain();
  const exited = once(main.child, 'exit');
  try {
    await createRuntime({ aicrVersion: 'v0.11.1' });
    await resolvedWith('Resolved=True from local mode', (c) => c.status === 'True', 120_000);
  } finally {
    main.child.kill('SIGTERM');
  }
  const [code] = (await exited) as [number | null];
  assert.equal(code, 0, `local mode stops cleanly on SIGTERM; output:\n${main.output().slice(-4000)}`);
  assert.match(main.output(), /local control plane running/);

  const events = await controlPlaneEventsSince(mark);
  const byUser = requestsByIdentity(events);
  const watches = events.filter((e) => e.verb === 'watch' && e.objectRef?.resource === KINDS.clusterRuntime.plural);
  assert.ok(
    watches.length > 0 && watches.every((e) => e.impersonatedUser?.username === IDENTITY_USER.forwarder),
    'the forwarder watches the runtime',
  );
  const statusWrites = events.filter(
    (e) =>
      e.objectRef?.resource === KINDS.clusterRuntime.plural &&
      e.objectRef.subresource === 'status' &&
      e.verb === 'patch',
  );
  assert.ok(
    statusWrites.some((e) => e.impersonatedUser?.username === IDENTITY_USER.step('resolve')),
    `the resolve step writes ${CONDITION.resolved}`,
  );
  for (const row of STEP_TABLE)
    assert.ok((byUser.get(IDENTITY_USER.step(row.name)) ?? 0) > 0, `the ${row.name} step made requests as itself`);
});
