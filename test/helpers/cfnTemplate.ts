// The packaged CloudFormation template read as a stack in one account and region would make it:
// parameters, pseudo parameters, conditions and the intrinsic functions the template uses, filled
// in with the physical names its resources ask for. Enough for the roles, policies and function
// environments; anything else it meets is an error, so a new intrinsic is never read wrongly.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export type Json = string | number | boolean | null | Json[] | { [key: string]: Json };
export interface TemplateResource {
  readonly Type: string;
  readonly Properties: Record<string, Json>;
  readonly Condition?: string;
}
export interface Template {
  readonly Resources: Record<string, TemplateResource>;
  readonly Parameters: Record<string, { Type: string; Default?: string }>;
  readonly Conditions: Record<string, Json>;
}

export function readPackagedTemplate(dir: string): Template {
  return JSON.parse(readFileSync(join(dir, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
}

/**
 * A value built from a list parameter as CloudFormation would build it, given the list: only
 * the parameter's Ref, Join and Split, which is all a list parameter's value is built with here.
 */
export function withList(node: unknown, parameter: string, values: readonly string[]): unknown {
  if (node === null || typeof node !== 'object') return node;
  if (Array.isArray(node)) return node.map((n) => withList(n, parameter, values));
  const e = node as { Ref?: string; 'Fn::Join'?: [string, unknown]; 'Fn::Split'?: [string, unknown] };
  if (e.Ref === parameter) return values;
  if (e['Fn::Join']) return (withList(e['Fn::Join'][1], parameter, values) as string[]).join(e['Fn::Join'][0]);
  if (e['Fn::Split']) return String(withList(e['Fn::Split'][1], parameter, values)).split(e['Fn::Split'][0]);
  throw new Error(`not read here: ${JSON.stringify(node)}`);
}

export interface Stack {
  readonly account: string;
  readonly region: string;
  /** Parameter values besides the defaults; a CommaDelimitedList takes a comma-joined string. */
  readonly parameters?: Readonly<Record<string, string>>;
  /** Where queues answer (their URL's origin), as the emulator names them. */
  readonly queueOrigin: string;
}

const isObject = (v: Json): v is { [key: string]: Json } => typeof v === 'object' && v !== null && !Array.isArray(v);

export class ResolvedStack {
  readonly template: Template;
  readonly stack: Stack;
  private readonly conditions = new Map<string, boolean>();

  constructor(template: Template, stack: Stack) {
    this.template = template;
    this.stack = stack;
  }

  /** A parameter's value: a string, or a list for a CommaDelimitedList. */
  private parameter(name: string): Json {
    const def = this.template.Parameters[name];
    if (!def) throw new Error(`no parameter ${name}`);
    const value = this.stack.parameters?.[name] ?? def.Default ?? '';
    return def.Type === 'CommaDelimitedList' ? (value === '' ? [''] : value.split(',')) : value;
  }

  condition(name: string): boolean {
    const known = this.conditions.get(name);
    if (known !== undefined) return known;
    const expr = this.template.Conditions[name];
    if (expr === undefined) throw new Error(`no condition ${name}`);
    const value = this.truth(expr);
    this.conditions.set(name, value);
    return value;
  }

  private truth(expr: Json): boolean {
    if (!isObject(expr)) throw new Error(`not a condition: ${JSON.stringify(expr)}`);
    const [fn, args] = Object.entries(expr)[0] ?? [];
    if (fn === 'Fn::Equals' && Array.isArray(args))
      return JSON.stringify(this.value(args[0] ?? null)) === JSON.stringify(this.value(args[1] ?? null));
    if (fn === 'Fn::Not' && Array.isArray(args)) return !this.truth(args[0] ?? null);
    if (fn === 'Condition' && typeof args === 'string') return this.condition(args);
    throw new Error(`condition function ${String(fn)} is not read here`);
  }

  /** A resource's physical name, as its Ref gives it for the types the roles name. */
  private ref(logical: string): string {
    const pseudo: Record<string, string> = {
      'AWS::AccountId': this.stack.account,
      'AWS::Region': this.stack.region,
      'AWS::Partition': 'aws',
      'AWS::URLSuffix': 'amazonaws.com',
    };
    if (pseudo[logical] !== undefined) return pseudo[logical];
    if (this.template.Parameters[logical]) {
      const v = this.parameter(logical);
      return Array.isArray(v) ? v.join(',') : String(v);
    }
    const r = this.template.Resources[logical];
    if (!r) throw new Error(`no resource ${logical}`);
    const name = this.physicalName(logical);
    return r.Type === 'AWS::SQS::Queue' ? `${this.stack.queueOrigin}/${this.stack.account}/${name}` : name;
  }

  /** The name a resource is given: its own name property, else its logical ID (roles here are named so by the test). */
  physicalName(logical: string): string {
    const p = this.template.Resources[logical]?.Properties ?? {};
    const named = p['QueueName'] ?? p['Name'] ?? p['RoleName'] ?? p['FunctionName'] ?? p['LogGroupName'];
    return typeof named === 'string' ? named : logical;
  }

  arn(logical: string): string {
    const r = this.template.Resources[logical];
    if (!r) throw new Error(`no resource ${logical}`);
    const { account, region } = this.stack;
    const name = this.physicalName(logical);
    switch (r.Type) {
      case 'AWS::SQS::Queue':
        return `arn:aws:sqs:${region}:${account}:${name}`;
      case 'AWS::IAM::Role':
        return `arn:aws:iam::${account}:role/${name}`;
      case 'AWS::Scheduler::ScheduleGroup':
        return `arn:aws:scheduler:${region}:${account}:schedule-group/${name}`;
      case 'AWS::Lambda::Function':
        return `arn:aws:lambda:${region}:${account}:function:${name}`;
      default:
        throw new Error(`the ARN of a ${r.Type} is not read here`);
    }
  }

  private sub(text: string): string {
    return text.replace(/\$\{([^}]+)\}/g, (_, name: string) =>
      name.endsWith('.Arn') ? this.arn(name.slice(0, -4)) : this.ref(name),
    );
  }

  /** Everything under `node` resolved; a Fn::If branch that is AWS::NoValue drops its key or list item. */
  value(node: Json, absent?: Json): Json {
    const out = this.resolve(node);
    if (out !== NO_VALUE) return out;
    if (absent === undefined) throw new Error('AWS::NoValue where a value is needed');
    return absent;
  }

  private resolve(node: Json): Json | typeof NO_VALUE {
    if (Array.isArray(node)) return node.map((n) => this.resolve(n)).filter((n): n is Json => n !== NO_VALUE);
    if (!isObject(node)) return node;
    const keys = Object.keys(node);
    const [fn] = keys;
    if (keys.length === 1 && fn !== undefined && (fn === 'Ref' || fn.startsWith('Fn::')))
      return this.intrinsic(fn, node[fn] ?? null);
    const out: Record<string, Json> = {};
    for (const k of keys) {
      const v = this.resolve(node[k] ?? null);
      if (v !== NO_VALUE) out[k] = v;
    }
    return out;
  }

  private intrinsic(fn: string, args: Json): Json | typeof NO_VALUE {
    const a = Array.isArray(args) ? args : [];
    const read: Record<string, () => Json | typeof NO_VALUE | undefined> = {
      Ref: () => {
        if (args === 'AWS::NoValue') return NO_VALUE;
        if (typeof args !== 'string') return undefined;
        return this.template.Parameters[args] ? this.parameter(args) : this.ref(args);
      },
      'Fn::GetAtt': () => (a[1] === 'Arn' ? this.arn(String(a[0])) : undefined),
      'Fn::Sub': () => (typeof args === 'string' ? this.sub(args) : undefined),
      'Fn::Join': () => {
        const items = this.value(a[1] ?? []);
        return Array.isArray(items) ? items.map(String).join(String(a[0])) : undefined;
      },
      'Fn::If': () => this.resolve((this.condition(String(a[0])) ? a[1] : a[2]) ?? null),
      'Fn::Split': () => {
        const source = this.value(a[1] ?? null);
        return typeof a[0] === 'string' && typeof source === 'string' ? source.split(a[0]) : undefined;
      },
      'Fn::Select': () => {
        const items = this.value(a[1] ?? []);
        return Array.isArray(items) && typeof a[0] === 'number' ? items[a[0]] : undefined;
      },
    };
    const out = read[fn]?.();
    if (out === undefined) throw new Error(`intrinsic ${fn} ${JSON.stringify(args)} is not read here`);
    return out;
  }

  /** Resources of a type that the stack creates (their own condition holds). */
  ofType(type: string): [string, TemplateResource][] {
    return Object.entries(this.template.Resources).filter(
      ([, r]) => r.Type === type && (r.Condition === undefined || this.condition(r.Condition)),
    );
  }
}

const NO_VALUE = Symbol('AWS::NoValue');
