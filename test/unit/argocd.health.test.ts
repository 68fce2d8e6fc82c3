// The Argo CD health checks shipped for the two kinds (infra/argocd/health-checks.values.yaml),
// run by a real Lua VM with only Lua's base functions, as Argo CD runs a script without
// useOpenLibs, against sample runtimes and rollouts in each state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fengari from 'fengari';
import { parse } from 'yaml';

const { lua, lauxlib, lualib, to_luastring } = fengari;
const values = parse(
  readFileSync(new URL('../../infra/argocd/health-checks.values.yaml', import.meta.url), 'utf8'),
) as { configs: { cm: Record<string, string> } };
const script = (kind: string): string =>
  values.configs.cm[`resource.customizations.health.operator.aicr.run_${kind}`] ?? '';

/** A JSON value as a Lua table constructor. */
function toLua(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `{${v.map(toLua).join(', ')}}`;
  return `{${Object.entries(v as Record<string, unknown>)
    .map(([k, x]) => `[${JSON.stringify(k)}] = ${toLua(x)}`)
    .join(', ')}}`;
}

function health(kind: string, obj: unknown): { status: string; message: string } {
  const L = lauxlib.luaL_newstate();
  lauxlib.luaL_requiref(L, to_luastring('_G'), lualib.luaopen_base, 1);
  lua.lua_pop(L, 1);
  const source = `obj = ${toLua(obj)}\nlocal function check()\n${script(kind)}\nend\nlocal hs = check()\nreturn hs.status, hs.message`;
  if (lauxlib.luaL_loadstring(L, to_luastring(source)) !== lua.LUA_OK || lua.lua_pcall(L, 0, 2, 0) !== lua.LUA_OK)
    throw new Error(lua.lua_tojsstring(L, -1));
  return { status: lua.lua_tojsstring(L, -2), message: lua.lua_tojsstring(L, -1) };
}

const cond = (type: string, status: string, reason: string, message = `${type} says so`): Record<string, string> => ({
  type,
  status,
  reason,
  message,
});
const runtime = (
  conditions: Record<string, string>[],
  extra: { generation?: number; observed?: number; paused?: boolean } = {},
): unknown => ({
  metadata: { name: 'cluster', generation: extra.generation ?? 2 },
  spec: { paused: extra.paused ?? false },
  status: { observedGeneration: extra.observed ?? 2, conditions },
});

test('the ClusterRuntime health check reads kstatus: no report and an unobserved generation are Progressing, Ready is Healthy', () => {
  assert.equal(health('ClusterRuntime', { metadata: { generation: 1 } }).status, 'Progressing');
  assert.deepEqual(
    health(
      'ClusterRuntime',
      runtime([cond('Ready', 'True', 'Released', 'plan aicr-plan-1 is active')], { generation: 3, observed: 2 }),
    ),
    { status: 'Progressing', message: 'waiting for the control plane to observe generation 3' },
  );
  assert.deepEqual(
    health(
      'ClusterRuntime',
      runtime([
        cond('Ready', 'True', 'Released', 'plan aicr-plan-1 is active'),
        cond('Stalled', 'False', 'Released'),
        cond('Reconciling', 'False', 'Released'),
      ]),
    ),
    { status: 'Healthy', message: 'Released: plan aicr-plan-1 is active' },
  );
  assert.equal(
    health(
      'ClusterRuntime',
      runtime([cond('Ready', 'False', 'Resolving'), cond('Reconciling', 'True', 'Resolving', 'running recipe')]),
    ).message,
    'Resolving: running recipe',
  );
});

test('the ClusterRuntime health check: a stall is Degraded with its reason, but waiting for approval and a pause are Suspended', () => {
  assert.deepEqual(
    health('ClusterRuntime', runtime([cond('Stalled', 'True', 'InvalidSpec', 'spec.criteria.os is not known')])),
    { status: 'Degraded', message: 'InvalidSpec: spec.criteria.os is not known' },
  );
  assert.equal(health('ClusterRuntime', runtime([cond('Stalled', 'True', 'AwaitingApproval')])).status, 'Suspended');
  assert.deepEqual(health('ClusterRuntime', runtime([cond('Ready', 'True', 'Released')], { paused: true })), {
    status: 'Suspended',
    message: 'paused (spec.paused)',
  });
});

test('the RuntimeRollout health check: outcomes decide once it ended; before that approval waits are Suspended and other stalls Degraded', () => {
  const rollout = (outcome: string | undefined, conditions: Record<string, string>[]): unknown => ({
    metadata: { name: 'r', generation: 1 },
    status: { ...(outcome ? { outcome } : {}), conditions },
  });
  assert.deepEqual(
    health('RuntimeRollout', rollout('Succeeded', [cond('Ready', 'True', 'RolloutSucceeded', 'done')])),
    { status: 'Healthy', message: 'done' },
  );
  assert.deepEqual(
    health('RuntimeRollout', rollout('Failed', [cond('Ready', 'False', 'RolloutFailed', 'step 2 timed out')])),
    { status: 'Degraded', message: 'Failed: step 2 timed out' },
  );
  assert.equal(
    health('RuntimeRollout', rollout('Superseded', [cond('Ready', 'False', 'Superseded')])).status,
    'Healthy',
  );
  assert.equal(
    health('RuntimeRollout', rollout(undefined, [cond('Stalled', 'True', 'AwaitingApproval')])).status,
    'Suspended',
  );
  assert.deepEqual(
    health('RuntimeRollout', rollout(undefined, [cond('Stalled', 'True', 'InventoryDrift', 'bravo was edited')])),
    { status: 'Degraded', message: 'InventoryDrift: bravo was edited' },
  );
  assert.deepEqual(
    health('RuntimeRollout', rollout(undefined, [cond('Reconciling', 'True', 'RolloutProgressing', 'step 1 of 3')])),
    { status: 'Progressing', message: 'step 1 of 3' },
  );
  assert.equal(health('RuntimeRollout', { metadata: { name: 'r' } }).status, 'Progressing');
});

test("the scripts need no library beyond Lua's base functions (Argo CD without useOpenLibs)", () => {
  for (const kind of ['ClusterRuntime', 'RuntimeRollout'])
    assert.doesNotMatch(script(kind), /\b(string|table|math|os|io)\./, kind);
});
