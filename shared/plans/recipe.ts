// AICR's effective recipe (kind RecipeResult), as `aicr bundle` writes it to recipe.yaml at
// the bundle's root: the fields a plan is built from, checked for the agreements a plan needs
// (every ordered name is a component and every component is ordered, once each).
import { parse } from 'yaml';
import * as z from 'zod';

const ComponentRefSchema = z.looseObject({
  name: z.string().min(1),
  namespace: z.string().optional(),
  chart: z.string().optional(),
  type: z.string().optional(),
  source: z.string().optional(),
  version: z.string().optional(),
  dependencyRefs: z.array(z.string()).optional(),
  manifestFiles: z.array(z.string()).optional(),
});
export type ComponentRef = z.output<typeof ComponentRefSchema>;

const RecipeSchema = z.looseObject({
  kind: z.literal('RecipeResult'),
  componentRefs: z.array(ComponentRefSchema),
  deploymentOrder: z.array(z.string()),
});
export type Recipe = z.output<typeof RecipeSchema>;

export type RecipeRead =
  { readonly ok: true; readonly recipe: Recipe } | { readonly ok: false; readonly problem: string };

/** `componentRefs[3].name: …` from zod's first issue. */
function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'it does not match the RecipeResult shape';
  const path = issue.path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
  return `${path === '' ? 'the document' : path}: ${issue.message}`;
}

/** The YAML library's first line, without the excerpt of the file it appends. */
export function yamlErrorText(err: unknown): string {
  const first = (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
  return first.replace(/:$/, '');
}

function firstDuplicate(names: readonly string[]): string | undefined {
  return names.find((n, i) => names.indexOf(n) !== i);
}

/** What breaks the agreement between componentRefs, deploymentOrder and dependencyRefs. */
function inconsistency(recipe: Recipe): string | undefined {
  const names = recipe.componentRefs.map((c) => c.name);
  const known = new Set(names);
  const ordered = new Set(recipe.deploymentOrder);
  const twice = firstDuplicate(names) ?? firstDuplicate(recipe.deploymentOrder);
  if (twice !== undefined)
    return (
      `component ${twice} is listed twice; each component is listed once in componentRefs and once in ` +
      'deploymentOrder'
    );
  const unknown = recipe.deploymentOrder.find((n) => !known.has(n));
  if (unknown !== undefined)
    return `deploymentOrder names ${unknown}, but no componentRef has that name: regenerate the recipe with aicr`;
  const unordered = names.find((n) => !ordered.has(n));
  if (unordered !== undefined)
    return (
      `component ${unordered} is missing from deploymentOrder, so it has no place in the rollout: ` +
      'regenerate the recipe with aicr'
    );
  for (const c of recipe.componentRefs) {
    const missing = c.dependencyRefs?.find((d) => !known.has(d));
    if (missing !== undefined) return `component ${c.name} depends on ${missing}, which the recipe does not list`;
  }
  return undefined;
}

/** Reads recipe.yaml's text; the problem names what is wrong, as `recipe.yaml: …`. */
export function readRecipe(text: string): RecipeRead {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    return { ok: false, problem: `recipe.yaml does not parse: ${yamlErrorText(err)}` };
  }
  const parsed = RecipeSchema.safeParse(doc);
  if (!parsed.success)
    return { ok: false, problem: `recipe.yaml is not an AICR RecipeResult: ${issueText(parsed.error)}` };
  const problem = inconsistency(parsed.data);
  return problem === undefined ? { ok: true, recipe: parsed.data } : { ok: false, problem: `recipe.yaml: ${problem}` };
}

export type RecipeOutline =
  | { readonly ok: true; readonly deploymentOrder: readonly string[]; readonly components: readonly string[] }
  | { readonly ok: false; readonly problem: string };

/** The recipe's deploymentOrder and its component names (in componentRefs order), to compare a plan against. */
export function recipeOutline(text: string): RecipeOutline {
  const read = readRecipe(text);
  if (!read.ok) return read;
  return {
    ok: true,
    deploymentOrder: read.recipe.deploymentOrder,
    components: read.recipe.componentRefs.map((c) => c.name),
  };
}
