// The Argo CD stand-in's pure parts: which repository Secret Argo CD would use for a repoURL,
// how timestamps are written, and when an Application counts as deployed at its target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Secret } from '@kubernetes/client-node';
import { credentialsFor } from '../env/argocd/repoCreds.ts';
import { inSync, olderRevisions, syncPlan, timestamp } from '../env/argocd/status.ts';
import type { Application } from '../env/argocd/types.ts';

function secret(name: string, type: string, data: Record<string, string>): V1Secret {
  return { metadata: { name, labels: { 'argocd.argoproj.io/secret-type': type } }, stringData: data };
}

const none = { degraded: false, neverSync: false, olderRevision: false };

test('repo-creds: the longest string prefix wins, without path-segment boundaries, case and .git ignored', () => {
  const secrets = [
    secret('host', 'repo-creds', { url: 'Registry.Example:5000', username: 'a', password: 'x' }),
    secret('team', 'repo-creds', { url: 'registry.example:5000/team', username: 'b', password: 'y', insecureOCIForceHttp: 'true' }),
  ];
  assert.equal(credentialsFor(secrets, 'registry.example:5000/team-b/charts')?.secret, 'team');
  assert.equal(credentialsFor(secrets, 'registry.example:5000/other')?.secret, 'host');
  assert.equal(credentialsFor(secrets, 'registry.example:5000/team.git')?.plainHttp, true);
  assert.equal(credentialsFor(secrets, 'oci://registry.example:5000/team'), undefined, 'the scheme is part of the string');
});

test('a repository Secret with credentials shadows templates; one without them inherits a template', () => {
  const template = secret('tpl', 'repo-creds', { url: 'r.example', username: 't', password: 'p', insecureOCIForceHttp: 'true' });
  assert.equal(credentialsFor([template, secret('repo', 'repository', { url: 'r.example/x', username: 'u', password: 'q' })], 'r.example/x')?.username, 'u');
  const bare = secret('repo', 'repository', { url: 'r.example/x' });
  assert.deepEqual(credentialsFor([template, bare], 'r.example/x'), { secret: 'tpl', username: 't', password: 'p', plainHttp: true });
});

test('timestamps are RFC 3339 at second precision, truncated as Kubernetes writes them', () => {
  assert.equal(timestamp(new Date('2026-01-02T03:04:05.999Z')), '2026-01-02T03:04:05Z');
});

const app = (history: { revision: string; source: Record<string, string> }[], automated = true): Application => ({
  metadata: { name: 'a' },
  spec: { source: { repoURL: 'r/x', chart: 'c', targetRevision: '2.0.0' }, ...(automated ? { syncPolicy: { automated: {} } } : {}) },
  status: { history: history.map((h, id) => ({ id, deployedAt: '2026-01-01T00:00:00Z', ...h })) },
});
const at = (revision: string) => ({ revision, source: { repoURL: 'r/x', chart: 'c', targetRevision: revision } });

test('in sync only when the last sync deployed exactly the spec source; automated sync otherwise', () => {
  assert.equal(inSync(app([at('1.0.0'), at('2.0.0')]), none), true);
  assert.equal(inSync(app([at('2.0.0'), at('1.0.0')]), none), false);
  assert.equal(inSync(app([]), none), false);
  assert.deepEqual(syncPlan(app([at('1.0.0')]), none, { ok: true, revisions: ['2.0.0'] })?.revisions, ['2.0.0']);
  assert.equal(syncPlan(app([at('1.0.0')], false), none, { ok: true, revisions: ['2.0.0'] }), undefined);
});

test('an older revision is the last one in history other than the target, 0.0.0 when none', () => {
  assert.deepEqual(olderRevisions(app([at('1.0.0'), at('1.5.0'), at('2.0.0')]), ['2.0.0']), ['1.5.0']);
  assert.deepEqual(olderRevisions(app([]), ['2.0.0']), ['0.0.0']);
});
