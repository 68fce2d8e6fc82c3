// The chart's values.schema.json, from the same zod schema the control plane reads its
// configuration with: Helm then refuses a misspelt key or a wrong type at install, naming the
// field, before anything reaches the cluster. The control plane still checks the ConfigMap
// itself, since a person can edit it without Helm.
import * as z from 'zod';
import { ConfigurationSchema } from './schema.ts';

export function renderValuesSchema(): string {
  // Inputs, not outputs: every key has a default, so a values file may leave any of them out.
  const schema = z.toJSONSchema(ConfigurationSchema, { io: 'input', unrepresentable: 'any' });
  const title = 'Values of the aicr-control-plane chart (written by npm run gen:crds)';
  return `${JSON.stringify({ ...schema, title }, null, 2)}\n`;
}
