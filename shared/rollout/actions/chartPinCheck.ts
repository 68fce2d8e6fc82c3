// SEC-5 at the moment it matters: just before a step writes a release, the charts it names must
// still be the bytes the plan pinned. A changed chart stalls the rollout with nothing written; a
// registry that cannot be asked holds it, as an unavailable Argo CD does.
import { pullCredentials } from '../../registry/credentials.ts';
import { checkPins, pinnedSources } from '../io/chartPins.ts';
import { NAMESPACES } from '../../api/constants.ts';
import type { RolloutReport } from '../rules/released.ts';
import { type Run, hold, stall } from './executeEnds.ts';

/** 'held' when step `i` may write its release; otherwise how this look ends. */
export async function pinsHeld(run: Run, i: number): Promise<'held' | RolloutReport> {
  const release = run.releases.get(run.r.spec.steps[i]?.release ?? '');
  if (!release || pinnedSources(release).length === 0) return 'held';
  const { registry } = run.look.configuration;
  const credentials = await pullCredentials({ kube: run.ctx.kube }, registry);
  if (!credentials.ok)
    return hold(
      run,
      `the chart digests of release ${release.name} cannot be checked, so nothing is written for it yet: ${credentials.message}`,
    );
  const checked = await checkPins(release, { dockerConfig: credentials.dockerConfig, plainHTTP: registry.plainHTTP });
  if (checked.state === 'held') return 'held';
  if (checked.state === 'unchecked')
    return hold(run, `${checked.message}; nothing is written for it until they can be`);
  const fix =
    'Nothing was written for it. Push the pinned chart back and the rollout goes on by itself; or, to take the chart as the registry holds it now, ' +
    `delete the plan (kubectl -n ${NAMESPACES.system} delete configmap ${run.r.spec.toPlan}): resolution builds it again from its bundle, copying the charts again, and a rollout to a changed plan needs a fresh approval`;
  return stall(run, i, 'ChartChanged', `${checked.message}. ${fix}`);
}
