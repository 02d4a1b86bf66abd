/**
 * A kubeconfig file (CLI) as a client-node KubeConfig, with kubectl's merge rules and the context
 * checked. The only module that loads client-node: the EKS path (kubeconfig.ts) does without it.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import type { Context } from '@kubernetes/client-node';
import { InputError, UsageError } from '../../domain/errors.ts';
import type { KubeContextFacts } from '../../domain/eks-context.ts';
import { thrownMessage } from './kube-errors.ts';
import { assertVerifiedTls } from './kubeconfig.ts';

export interface KubeconfigSelection {
  /** `KUBECONFIG` as the caller read it (one path or a `:`-separated list); default `~/.kube/config`. */
  kubeconfigPath?: string;
  /** `--context`; default the kubeconfig's current-context. */
  context?: string;
}

function kubeconfigFiles(kubeconfigPath: string | undefined): string[] {
  if (kubeconfigPath === undefined || kubeconfigPath === '') return [path.join(homedir(), '.kube', 'config')];
  return kubeconfigPath.split(path.delimiter).filter((file) => file !== '');
}

function loadFile(file: string): KubeConfig {
  const config = new KubeConfig();
  try {
    config.loadFromFile(file);
  } catch (err) {
    throw new InputError(file, `not a usable kubeconfig: ${thrownMessage(err)}`, { cause: err });
  }
  return config;
}

/** kubectl's merge rules for a KUBECONFIG list: the first file to define a name (or current-context) wins. */
function merged(configs: KubeConfig[]): KubeConfig {
  const [first, ...rest] = configs;
  if (!first) throw new Error('no kubeconfig to merge');
  for (const next of rest) {
    if (!first.getCurrentContext() && next.getCurrentContext()) first.setCurrentContext(next.getCurrentContext());
    for (const cluster of next.getClusters()) if (!first.getCluster(cluster.name)) first.addCluster(cluster);
    for (const user of next.getUsers()) if (!first.getUser(user.name)) first.addUser(user);
    for (const context of next.getContexts()) if (!first.getContextObject(context.name)) first.addContext(context);
  }
  return first;
}

/**
 * Loads the kubeconfig and selects the context. Problems are one line naming the file or the
 * context: missing file, unknown context (with the available ones), undefined cluster or user,
 * plain HTTP, and `insecure-skip-tls-verify`.
 */
export function loadKubeConfig(selection: KubeconfigSelection = {}): KubeConfig {
  const files = kubeconfigFiles(selection.kubeconfigPath);
  const present = files.filter((file) => existsSync(file));
  // Like kubectl, missing entries of a KUBECONFIG list are skipped; a single named file must exist.
  if (present.length === 0) {
    throw new InputError(
      files.join(path.delimiter),
      files.length > 1 ? 'none of these kubeconfig files exists' : 'kubeconfig not found',
    );
  }
  const config = merged(present.map(loadFile));
  const where = present.join(path.delimiter);
  const available = config
    .getContexts()
    .map((c) => c.name)
    .join(', ');

  const contextName = selection.context ?? config.getCurrentContext();
  if (!contextName) {
    throw new UsageError(`${where} sets no current-context; choose one with --context (available: ${available || 'none'})`);
  }
  const context = config.getContextObject(contextName);
  if (!context) {
    throw new UsageError(`context "${contextName}" not found in ${where} (available: ${available || 'none'})`);
  }
  config.setCurrentContext(contextName);
  checkContext(config, context, where);
  return config;
}

function checkContext(config: KubeConfig, context: Context, where: string): void {
  const cluster = config.getCluster(context.cluster);
  if (!cluster) throw new InputError(where, `context "${context.name}" names cluster "${context.cluster}", which is not defined`);
  // client-node applies the cluster CA only when the context has a user: without one TLS would
  // silently fall back to the system roots.
  if (!config.getUser(context.user)) {
    throw new InputError(where, `context "${context.name}" names user "${context.user}", which is not defined`);
  }
  assertVerifiedTls(cluster, where);
}

/** A kubeconfig read once: the selected context's facts, and the loaded config a client is built on. */
export interface KubeContextRead {
  facts: KubeContextFacts;
  config: KubeConfig;
}

/**
 * The selected context as domain/eks-context.ts reads it (its name, its cluster entry and server,
 * and its user's exec plugin: command, args, env), with the config it was read from, checked as
 * loadKubeConfig does: the CLI resolves its target and connects from this one read.
 */
export function readKubeContext(selection: KubeconfigSelection = {}): KubeContextRead {
  const config = loadKubeConfig(selection);
  const context = config.getContextObject(config.getCurrentContext()) as Context;
  const cluster = config.getCluster(context.cluster);
  const exec = execOf(config.getUser(context.user)?.exec);
  const facts = { name: context.name, clusterEntry: context.cluster, server: cluster?.server ?? '', ...(exec ? { exec } : {}) };
  return { facts, config };
}

/** client-node keeps a user's `exec` as parsed YAML (`any`): only strings are taken from it. */
function execOf(exec: unknown): KubeContextFacts['exec'] {
  if (typeof exec !== 'object' || exec === null) return undefined;
  const { command, args, env } = exec as { command?: unknown; args?: unknown; env?: unknown };
  if (typeof command !== 'string') return undefined;
  const strings = Array.isArray(args) ? args.filter((a): a is string => typeof a === 'string') : [];
  const variables: Record<string, string> = {};
  for (const entry of Array.isArray(env) ? (env as unknown[]) : []) {
    const { name, value } = (entry ?? {}) as { name?: unknown; value?: unknown };
    if (typeof name === 'string' && typeof value === 'string') variables[name] = value;
  }
  return { command, args: strings, env: variables };
}
