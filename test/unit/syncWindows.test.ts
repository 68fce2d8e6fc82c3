// Argo CD's sync windows on an AppProject, picked for an Application the way Argo CD v3.5.1's
// controller picks them (applications, clusters, namespaces; OR unless andOperator), and judged
// with the same evaluator as the runtime's own windows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigurationSchema } from '../../shared/configuration/schema.ts';
import { judgeWindows } from '../../shared/rollout/rules/maintenanceWindows.ts';
import { type SyncTarget, applies, projectWindowsFor } from '../../shared/rollout/rules/syncWindows.ts';

const target: SyncTarget = {
  name: 'gpu-operator',
  destination: { server: 'https://kubernetes.default.svc', namespace: 'gpu-operator' },
};
const deny = { kind: 'deny', schedule: '0 22 * * *', duration: '2h' };

test('WIN-3 a window applies to an Application when one of its lists matches it by glob; with andOperator every list set must match', () => {
  assert.equal(applies({ ...deny, applications: ['gpu-*'] }, target), true);
  assert.equal(applies({ ...deny, applications: ['network-*'] }, target), false);
  assert.equal(applies({ ...deny, applications: ['*'] }, target), true);
  assert.equal(applies({ ...deny, applications: ['gpu-operato?'] }, target), true);
  assert.equal(applies({ ...deny, applications: ['{gpu,network}-operator'] }, target), true);
  assert.equal(applies({ ...deny, applications: ['[!g]pu-operator'] }, target), false);
  assert.equal(applies({ ...deny, namespaces: ['gpu-*'] }, target), true);
  assert.equal(applies({ ...deny, clusters: ['https://kubernetes.default.svc'] }, target), true);
  assert.equal(
    applies({ ...deny, clusters: ['in-cluster'] }, { ...target, destination: { name: 'in-cluster', namespace: 'x' } }),
    true,
  );
  assert.equal(applies(deny, target), false, 'a window with no lists applies to nothing, as in Argo CD');
  // OR: one list matching is enough; AND: every list that is set must match.
  assert.equal(applies({ ...deny, applications: ['other'], namespaces: ['gpu-*'] }, target), true);
  assert.equal(applies({ ...deny, applications: ['other'], namespaces: ['gpu-*'], andOperator: true }, target), false);
  assert.equal(applies({ ...deny, applications: ['gpu-*'], namespaces: ['gpu-*'], andOperator: true }, target), true);
  assert.equal(
    applies({ ...deny, applications: ['gpu.operator'] }, target),
    false,
    'a dot is literal, not any character',
  );
});

test("WIN-3 the windows that apply become the evaluator's, in Argo CD's lower-case kinds and its UTC default", () => {
  const read = projectWindowsFor(
    [
      { ...deny, applications: ['*'] },
      { kind: 'allow', schedule: '0 1 * * *', duration: '1h', namespaces: ['elsewhere'] },
      { kind: 'allow', schedule: '0 2 * * *', duration: '30m', applications: ['gpu-*'], timeZone: 'Europe/Berlin' },
    ],
    target,
  );
  assert.deepEqual(read, {
    ok: true,
    windows: [
      { kind: 'Deny', schedule: '0 22 * * *', durationMs: 7_200_000, timeZone: 'UTC' },
      { kind: 'Allow', schedule: '0 2 * * *', durationMs: 1_800_000, timeZone: 'Europe/Berlin' },
    ],
  });
  assert.ok(read.ok);
  assert.equal(judgeWindows(read.windows, new Date('2026-12-02T23:00:00Z')).open, false, 'inside the deny window');
  assert.deepEqual(projectWindowsFor(undefined, target), { ok: true, windows: [] }, 'no windows: nothing holds');
  // Argo CD takes an unknown zone as UTC (and logs it); so does the control plane.
  assert.deepEqual(projectWindowsFor([{ ...deny, applications: ['*'], timeZone: 'Mars/Olympus' }], target), {
    ok: true,
    windows: [{ kind: 'Deny', schedule: '0 22 * * *', durationMs: 7_200_000, timeZone: 'UTC' }],
  });
});

test('WIN-3 a window that applies and cannot be read is a problem naming it (Argo CD then refuses every automated sync); one that does not apply is ignored', () => {
  const bad = projectWindowsFor(
    [{ kind: 'deny', schedule: '0 25 * * *', duration: '1h', applications: ['*'] }],
    target,
  );
  assert.equal(bad.ok, false);
  assert.match(
    bad.ok ? '' : bad.problem,
    /window deny "0 25 \* \* \*" for 1h has a schedule that does not parse: field 2 \(hour\)/,
  );
  const kind = projectWindowsFor(
    [{ kind: 'block', schedule: '0 1 * * *', duration: '1h', applications: ['*'] }],
    target,
  );
  assert.match(kind.ok ? '' : kind.problem, /kind "block"; Argo CD knows only allow and deny/);
  const fraction = projectWindowsFor(
    [{ kind: 'deny', schedule: '0 1 * * *', duration: '1.5h', applications: ['*'] }],
    target,
  );
  assert.match(
    fraction.ok ? '' : fraction.problem,
    /duration the control plane does not read: write it in whole h, m and s/,
  );
  assert.deepEqual(
    projectWindowsFor([{ kind: 'block', schedule: 'x', duration: 'y', applications: ['other'] }], target),
    { ok: true, windows: [] },
  );
});

test("WIN-3 the chart value argocd.syncWindows takes Argo CD's window form and refuses a bad one naming the field", () => {
  const ok = ConfigurationSchema.safeParse({
    argocd: {
      syncWindows: [
        { kind: 'deny', schedule: '0 22 * * 1-5', duration: '2h', applications: ['*'], timeZone: 'Europe/Berlin' },
      ],
    },
  });
  assert.ok(ok.success, ok.error?.message);
  assert.equal(ok.data.argocd.syncWindows.length, 1);
  assert.deepEqual(ConfigurationSchema.parse({}).argocd.syncWindows, []);
  const bad = ConfigurationSchema.safeParse({
    argocd: { syncWindows: [{ kind: 'Deny', schedule: '0 22 * *', duration: '2h' }] },
  });
  assert.equal(bad.success, false);
  const paths = (bad.error?.issues ?? []).map((i) => i.path.join('.'));
  assert.deepEqual(paths.sort(), ['argocd.syncWindows.0.kind', 'argocd.syncWindows.0.schedule']);
});
