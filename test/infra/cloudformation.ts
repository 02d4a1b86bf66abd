/**
 * Reading a packaged CloudFormation template in tests: typed access, condition evaluation, IAM
 * statements, Fn::Sub substitution and a reference check. Only the long-form intrinsics the
 * template uses (Ref, Fn::GetAtt, Fn::Sub, Fn::If, Fn::Equals, Fn::Not, Fn::Or, Condition).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface Resource {
  Type: string;
  Properties?: JsonObject;
  Condition?: string;
  DependsOn?: string | string[];
}

export interface Template {
  Resources: Record<string, Resource>;
  Conditions?: Record<string, Json>;
  Outputs?: Record<string, JsonObject>;
}

export async function readTemplate(packageDir: string): Promise<Template> {
  return JSON.parse(await readFile(path.join(packageDir, 'cloudformation-template-update-stack.json'), 'utf8')) as Template;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `keys` below `value`, or undefined. */
export function at(value: unknown, ...keys: (string | number)[]): unknown {
  let current: unknown = value;
  for (const key of keys) {
    if (typeof key === 'number') current = Array.isArray(current) ? current[key] : undefined;
    else current = isObject(current) ? current[key] : undefined;
  }
  return current;
}

export function resource(template: Template, logicalId: string): Resource {
  const found = template.Resources[logicalId];
  if (!found) throw new Error(`the template has no resource ${logicalId}`);
  return found;
}

export function resourcesOfType(template: Template, type: string): [string, Resource][] {
  return Object.entries(template.Resources).filter(([, r]) => r.Type === type);
}

/** osls's logical-id normalisation: `scan-dispatch` → `ScanDashdispatch`. */
function normalizedName(name: string): string {
  const replaced = name.replace(/-/g, 'Dash').replace(/_/g, 'Underscore');
  return replaced.charAt(0).toUpperCase() + replaced.slice(1);
}

export const lambdaLogicalId = (fn: string) => `${normalizedName(fn)}LambdaFunction`;
export const logGroupLogicalId = (fn: string) => `${normalizedName(fn)}LogGroup`;

/** Evaluates a condition of the template (its values are literal: osls resolved the params). */
export function conditionHolds(template: Template, name: string): boolean {
  const expression = template.Conditions?.[name];
  if (expression === undefined) throw new Error(`the template has no condition ${name}`);
  return evaluate(template, expression);
}

function evaluate(template: Template, expression: Json): boolean {
  if (!isObject(expression)) throw new Error(`not a condition expression: ${JSON.stringify(expression)}`);
  if (typeof expression.Condition === 'string') return conditionHolds(template, expression.Condition);
  const [fn, args] = Object.entries(expression)[0] ?? [];
  const list = Array.isArray(args) ? args : [];
  switch (fn) {
    case 'Fn::Equals':
      return JSON.stringify(list[0]) === JSON.stringify(list[1]);
    case 'Fn::Not':
      return !evaluate(template, list[0] ?? null);
    case 'Fn::Or':
      return list.some((e) => evaluate(template, e));
    case 'Fn::And':
      return list.every((e) => evaluate(template, e));
    default:
      throw new Error(`unsupported condition function ${String(fn)}`);
  }
}

export interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string[];
  Resource: Json[];
  Principal?: Json;
  Condition?: JsonObject;
}

/**
 * A policy document's statements, actions and resources as lists. An Fn::If gives the branch its
 * condition selects when `template` is given, else both branches (AWS::NoValue dropped).
 */
export function statementsOf(document: unknown, template?: Template): Statement[] {
  const raw = at(document, 'Statement');
  const list = Array.isArray(raw) ? raw : [raw];
  return list
    .flatMap((s) => branches(s, template))
    .map((s) => {
      const action = s.Action;
      const res = s.Resource;
      return {
        ...(s as unknown as Statement),
        Action: (Array.isArray(action) ? action : [action]).map(String),
        Resource: Array.isArray(res) ? res : [res ?? null],
      };
    });
}

function branches(value: Json, template: Template | undefined): JsonObject[] {
  if (!isObject(value)) return [];
  const choice = value['Fn::If'];
  if (Array.isArray(choice)) {
    const chosen =
      template === undefined ? [choice[1], choice[2]] : [conditionHolds(template, String(choice[0])) ? choice[1] : choice[2]];
    return chosen.flatMap((v) => branches(v ?? null, template));
  }
  if (value.Ref === 'AWS::NoValue') return [];
  return [value];
}

/** Every inline policy statement of a role (see statementsOf for `template`). */
export function roleStatements(role: Resource, template?: Template): Statement[] {
  const policies = at(role, 'Properties', 'Policies');
  return (Array.isArray(policies) ? policies : []).flatMap((p) => statementsOf(at(p, 'PolicyDocument'), template));
}

/**
 * Fn::Sub of `[text, variables]` or `text`: `${AWS::X}` and `${Logical}` / `${Logical.Attr}` become
 * `<AWS::X>` / `<Logical>` / `<Logical.Attr>`; variables are resolved (an Fn::If by its condition).
 */
export function substitute(template: Template, sub: unknown): string {
  const [text, variables] = Array.isArray(sub) ? [sub[0], sub[1]] : [sub, undefined];
  if (typeof text !== 'string') throw new Error(`Fn::Sub without a string: ${JSON.stringify(sub)}`);
  return text.replace(/\$\{([^}!][^}]*)\}/g, (_match, name: string) => {
    const variable = isObject(variables) ? variables[name] : undefined;
    return variable === undefined ? `<${name}>` : resolveValue(template, variable);
  });
}

function resolveValue(template: Template, value: Json): string {
  if (typeof value === 'string') return value;
  if (isObject(value)) {
    const choice = value['Fn::If'];
    if (Array.isArray(choice) && typeof choice[0] === 'string') {
      return resolveValue(template, (conditionHolds(template, choice[0]) ? choice[1] : choice[2]) ?? '');
    }
    if (value['Fn::Sub'] !== undefined) return substitute(template, value['Fn::Sub']);
    if (typeof value.Ref === 'string') return `<${value.Ref}>`;
  }
  throw new Error(`cannot resolve ${JSON.stringify(value)}`);
}

export interface ReferenceProblem {
  from: string;
  problem: string;
}

/**
 * Every Ref / Fn::GetAtt / Fn::Sub name points at a resource, a parameter or a pseudo parameter, and
 * a resource that exists only under a condition is referenced only from resources with the same
 * condition or from inside an Fn::If on it: what CloudFormation would otherwise reject at deploy time.
 */
export function referenceProblems(template: Template): ReferenceProblem[] {
  const problems: ReferenceProblem[] = [];
  const visit = (from: string, fromCondition: string | undefined, value: unknown, guards: readonly string[]) => {
    const check = (name: string) => {
      if (name.startsWith('AWS::')) return;
      const target = template.Resources[name];
      if (!target) {
        problems.push({ from, problem: `references ${name}, which is not in the template` });
        return;
      }
      if (target.Condition && target.Condition !== fromCondition && !guards.includes(target.Condition)) {
        problems.push({ from, problem: `references ${name} (condition ${target.Condition}) outside that condition` });
      }
    };
    if (Array.isArray(value)) {
      for (const v of value) visit(from, fromCondition, v, guards);
      return;
    }
    if (!isObject(value)) return;
    if (typeof value.Ref === 'string') check(value.Ref);
    const getAtt = value['Fn::GetAtt'];
    if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') check(getAtt[0]);
    const sub = value['Fn::Sub'];
    if (sub !== undefined) {
      const [text, variables] = Array.isArray(sub) ? [sub[0], sub[1]] : [sub, undefined];
      const names = typeof text === 'string' ? [...text.matchAll(/\$\{([^}!][^}.]*)(?:\.[^}]*)?\}/g)].map((m) => m[1] ?? '') : [];
      for (const name of names) if (!(isObject(variables) && name in variables)) check(name);
      if (variables !== undefined) visit(from, fromCondition, variables, guards);
    }
    const choice = value['Fn::If'];
    if (Array.isArray(choice) && typeof choice[0] === 'string') {
      visit(from, fromCondition, choice[1], [...guards, choice[0]]);
      visit(from, fromCondition, choice[2], guards);
      return;
    }
    for (const [key, v] of Object.entries(value)) if (key !== 'Fn::Sub') visit(from, fromCondition, v, guards);
  };
  for (const [id, r] of Object.entries(template.Resources)) {
    visit(id, r.Condition, r.Properties, []);
    for (const dependency of [r.DependsOn ?? []].flat()) visit(id, r.Condition, { Ref: dependency }, []);
  }
  for (const [id, output] of Object.entries(template.Outputs ?? {})) {
    const condition = typeof output.Condition === 'string' ? output.Condition : undefined;
    visit(`Outputs.${id}`, condition, output.Value, []);
  }
  return problems;
}

/** One request to an IAM policy: the action, the resource's ARN and the resource's tags. */
export interface IamRequest {
  action: string;
  resource: string;
  tags: Record<string, string>;
}

/** The account and region a deployed statement's Fn::Sub pseudo parameters stand for in `iamAllows`. */
export const SAMPLE_ACCOUNT = { partition: 'aws', accountId: '111122223333', region: 'eu-west-1' } as const;

/**
 * Whether any Allow statement grants the request, as IAM evaluates the parts this template uses:
 * Action, Resource (ARN globs `*` and `?`, Fn::Sub of the pseudo parameters as SAMPLE_ACCOUNT),
 * and the Null, StringEquals and StringEqualsIfExists operators on `aws:ResourceTag/...` keys. Give
 * it deployed statements (roleStatements with the template): an operator it does not know fails the test.
 */
export function iamAllows(statements: readonly Statement[], request: IamRequest): boolean {
  return statements.some(
    (s) =>
      s.Effect === 'Allow' &&
      s.Action.includes(request.action) &&
      s.Resource.some((r) => globMatches(pseudoValue(r), request.resource)) &&
      Object.entries(s.Condition ?? {}).every(([operator, block]) => operatorHolds(operator, block, request.tags)),
  );
}

function pseudoValue(value: Json): string {
  if (typeof value === 'string') return value;
  if (isObject(value) && value.Ref === 'AWS::Region') return SAMPLE_ACCOUNT.region;
  if (isObject(value) && typeof value['Fn::Sub'] === 'string') {
    return value['Fn::Sub']
      .replaceAll('${AWS::Partition}', SAMPLE_ACCOUNT.partition)
      .replaceAll('${AWS::AccountId}', SAMPLE_ACCOUNT.accountId)
      .replaceAll('${AWS::Region}', SAMPLE_ACCOUNT.region);
  }
  throw new Error(`not a deployed IAM value: ${JSON.stringify(value)}`);
}

function globMatches(pattern: string, value: string): boolean {
  const regex = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${regex}$`).test(value);
}

function operatorHolds(operator: string, block: Json, tags: Record<string, string>): boolean {
  if (!isObject(block)) throw new Error(`condition ${operator} is not a map: ${JSON.stringify(block)}`);
  return Object.entries(block).every(([key, expected]) => {
    const prefix = 'aws:ResourceTag/';
    if (!key.startsWith(prefix)) throw new Error(`condition key ${key} is not evaluated here`);
    const actual = tags[key.slice(prefix.length)];
    const values = (Array.isArray(expected) ? expected : [expected]).map(pseudoValue);
    switch (operator) {
      case 'Null':
        return values.includes(String(actual === undefined));
      case 'StringEquals':
        return actual !== undefined && values.includes(actual);
      case 'StringEqualsIfExists':
        return actual === undefined || values.includes(actual);
      default:
        throw new Error(`condition operator ${operator} is not evaluated here`);
    }
  });
}
