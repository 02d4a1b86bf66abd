import type {
  AccessEntry,
  ClusterInfo,
  FargateProfile,
  Instance,
  InstanceProfile,
  LaunchTemplate,
  LogLine,
  SpotPrice,
  Subnet,
} from '../domain/aws.ts';
import type { InstanceTypeInfo } from '../domain/instance-types.ts';
import { UsageError } from '../domain/errors.ts';
import type { KubeEvent, KubeObject } from '../domain/kube.ts';
import {
  emptySnapshot,
  inSourceOrder,
  setAsideGap,
  type ClusterSnapshot,
  type Gap,
  type RefusedWrite,
  type SourceName,
} from '../domain/snapshot.ts';
import { counted } from '../domain/words.ts';
import type { AwsCliOutput } from './aws-cli.ts';
import { DuplicateObjects } from './duplicate-objects.ts';
import { controllerClusterMismatch, controllerClusterNames, resolveClusterName } from './cluster-name.ts';
import { treatDeletedClusterAsHavingNoKubernetesObjects } from './deleted-cluster.ts';
import type { LoadResult } from './load-result.ts';
import type { Contribution } from './recognise.ts';
import { describeProblem } from '../domain/json-checks.ts';
import { AWS_SHAPES } from '../domain/object-shapes.ts';
import { oneLine } from '../domain/shape.ts';
import { controllersOf } from '../domain/snapshot-index.ts';
import { spotTypesInPlay } from '../domain/spot-types.ts';
import { visibleLine } from '../domain/visible.ts';

export interface MergeResult extends Omit<LoadResult, 'files'> {
  /** The notes (among `notices`) about objects set aside as malformed: which, and why. */
  setAside: string[];
}

/** Notes per source about objects set aside; past this, one line counts the rest. */
const SET_ASIDE_NOTES_PER_SOURCE = 5;

/** Merges each file's contributions into one snapshot; one map per source so duplicates across files merge in O(1). */
export class CaptureMerger {
  readonly #captured = new Set<SourceName>();
  readonly #gaps = new Map<string, Gap>();
  readonly #objects = new Map<SourceName, Map<string, KubeObject>>();
  readonly #events = new Map<string, KubeEvent>();
  readonly #instances = new Map<string, Instance>();
  readonly #clusters: ClusterInfo[] = [];
  readonly #goneClusters: string[] = [];
  readonly #fargateProfiles = new Map<string, FargateProfile>();
  readonly #accessEntries = new Map<string, AccessEntry>();
  readonly #launchTemplates = new Map<string, LaunchTemplate>();
  readonly #instanceProfiles = new Map<string, InstanceProfile>();
  readonly #subnets = new Map<string, Subnet>();
  readonly #instanceTypes = new Map<string, InstanceTypeInfo>();
  /** By type, zone, product and time: the same price in several files (or pages) once. */
  readonly #spotPrices = new Map<string, SpotPrice>();
  readonly #logs: LogLine[] = [];
  readonly #refusedWrites: RefusedWrite[] = [];
  readonly #notices: string[] = [];
  /** Per source: a pagination token seen, and whether some page had none (the last one). */
  readonly #pages = new Map<SourceName, { more?: string; last: boolean }>();
  /** Objects set aside as malformed, per source and key, with the note that says why. */
  readonly #setAside = new Map<SourceName, Map<string, string>>();
  #unnamed = 0;
  /** The same object in several files: which copy is kept, and a note when they differ. */
  readonly #duplicates = new DuplicateObjects();

  add(path: string, contributions: readonly Contribution[]): void {
    let secrets = 0;
    const unused = new Map<string, number>();
    const legacy = new Map<string, number>();
    for (const c of contributions) {
      switch (c.type) {
        case 'captured':
          this.#captured.add(c.source);
          break;
        case 'object': {
          this.#captured.add(c.source);
          const objects = mapFor(this.#objects, c.source);
          if (this.#duplicates.kubeObject(c.key, objects.get(c.key), c.object, path)) objects.set(c.key, c.object);
          this.#setAside.get(c.source)?.delete(c.key);
          break;
        }
        case 'malformed': {
          // Later files win: a malformed copy replaces an earlier good one, and is itself set aside.
          this.#captured.add(c.source);
          if (c.key !== undefined) this.#objects.get(c.source)?.delete(c.key);
          const key = c.key ?? `unnamed ${this.#unnamed++}`;
          mapFor(this.#setAside, c.source).set(key, `${path}: ${c.object}: ${c.problem}; object set aside`);
          break;
        }
        case 'event':
          this.#captured.add('events');
          this.#events.set(c.key, c.event);
          break;
        case 'aws':
          this.#addAws(path, c.output);
          break;
        case 'page': {
          const pages = this.#pages.get(c.source) ?? { last: false };
          if (c.more) pages.more = c.more;
          else pages.last = true;
          this.#pages.set(c.source, pages);
          break;
        }
        case 'cluster-gone':
          this.#captured.add('cluster');
          this.#goneClusters.push(c.name);
          break;
        case 'gap':
          this.#gaps.set(`${c.source}\n${c.error}`, { source: c.source, error: c.error });
          break;
        case 'note':
          this.#notices.push(`${path}: ${c.text}`);
          break;
        case 'refused-write':
          this.#refusedWrites.push({ text: c.text, origin: `${path}:${c.line}` });
          break;
        case 'secret':
          secrets++;
          break;
        case 'unused': {
          const counts = c.legacyKarpenter ? legacy : unused;
          counts.set(c.kind, (counts.get(c.kind) ?? 0) + 1);
          break;
        }
      }
    }
    if (secrets > 0) this.#notices.push(`${path}: skipped ${counted(secrets, 'Secret')}: Secrets are never read`);
    if (unused.size > 0) {
      this.#notices.push(
        `${path}: skipped ${countedKinds(unused)} of kinds karpenter-sentinel does not use (${kindList(unused)})`,
      );
    }
    if (legacy.size > 0) {
      this.#notices.push(
        `${path}: skipped ${countedKinds(legacy)} of Karpenter's alpha API (${kindList(legacy)}): karpenter-sentinel reads Karpenter v0.32 and later (karpenter.sh v1beta1 and v1)`,
      );
    }
  }

  /** `notice`: what the user should know about them (only the last lines of a long log are read). */
  addLogs(lines: readonly LogLine[], notice?: string): void {
    this.#captured.add('logs');
    for (const line of lines) this.#logs.push(line);
    if (notice) this.#notices.push(notice);
  }

  #addAws(path: string, raw: AwsCliOutput): void {
    this.#captured.add(raw.source);
    const output = this.#wellFormedAws(path, raw);
    switch (output?.source) {
      case 'instances':
        for (const i of output.instances) {
          if (this.#duplicates.instance(this.#instances.get(i.id), i, path)) this.#instances.set(i.id, i);
        }
        break;
      case 'cluster':
        this.#clusters.push(output.cluster);
        break;
      case 'fargateprofiles':
        for (const p of output.profiles) keepDescribed(this.#fargateProfiles, p.name, p);
        break;
      case 'accessentries':
        for (const e of output.entries) keepDescribed(this.#accessEntries, e.principalArn, e);
        break;
      case 'launchtemplates':
        for (const t of output.templates) this.#launchTemplates.set(t.id, t);
        break;
      case 'instanceprofiles':
        for (const p of output.profiles)
          this.#instanceProfiles.set(p.name, mergeInstanceProfile(this.#instanceProfiles.get(p.name), p));
        break;
      case 'subnets':
        for (const s of output.subnets) this.#subnets.set(s.id, s);
        break;
      case 'instancetypes':
        for (const t of output.instanceTypes) this.#instanceTypes.set(t.name, t);
        break;
      case 'spotprices':
        for (const p of output.prices) this.#spotPrices.set(spotPriceKey(p), p);
        break;
    }
  }

  /**
   * The records of an output whose fields are of their declared types; the others are set aside.
   * The loader and the AWS adapters build these records field by field, so this only guards
   * against a reader or an adapter letting a wrong type through.
   */
  #wellFormedAws(path: string, output: AwsCliOutput): AwsCliOutput | undefined {
    const keep = <T extends object>(records: readonly T[], what: string, nameOf: (r: T) => unknown): T[] =>
      records.filter((r) => {
        const problem = AWS_SHAPES[output.source](r);
        if (!problem) return true;
        const name = oneLine(String(nameOf(r)), 100);
        mapFor(this.#setAside, output.source).set(
          `${what}/${name}`,
          `${path}: ${what} ${name}: ${oneLine(describeProblem(problem), 200)}; object set aside`,
        );
        return false;
      });
    switch (output.source) {
      case 'instances':
        return { ...output, instances: keep(output.instances, 'Instance', (r) => r.id) };
      case 'cluster': {
        return keep([output.cluster], 'Cluster', (r) => r.name).length > 0 ? output : undefined;
      }
      case 'fargateprofiles':
        return { ...output, profiles: keep(output.profiles, 'FargateProfile', (r) => r.name) };
      case 'accessentries':
        return { ...output, entries: keep(output.entries, 'AccessEntry', (r) => r.principalArn) };
      case 'launchtemplates':
        return { ...output, templates: keep(output.templates, 'LaunchTemplate', (r) => r.id) };
      case 'instanceprofiles':
        return { ...output, profiles: keep(output.profiles, 'InstanceProfile', (r) => r.name) };
      case 'subnets':
        return { ...output, subnets: keep(output.subnets, 'Subnet', (r) => r.id) };
      case 'instancetypes': {
        // What instanceTypeFromApi could not read is set aside like any malformed object.
        for (const item of output.rejected) {
          const name = oneLine(item, 100);
          mapFor(this.#setAside, 'instancetypes').set(
            `InstanceType/${name}`,
            `${path}: InstanceType ${name}: has no InstanceType name, VCpuInfo.DefaultVCpus or MemoryInfo.SizeInMiB; object set aside`,
          );
        }
        return { ...output, instanceTypes: keep(output.instanceTypes, 'InstanceType', (r) => r.name) };
      }
      case 'spotprices': {
        const skipped = output.skipped ?? [];
        if (skipped.length > 0)
          this.#notices.push(
            `${path}: skipped ${counted(skipped.length, 'Spot price row')} that could not be read (first: ${oneLine(skipped[0] ?? '', 200)}); the other prices are used`,
          );
        return { ...output, prices: keep(output.prices, 'SpotPrice', spotPriceKey) };
      }
    }
  }

  /**
   * The Spot types among what was read so far (the live scan asks their prices once the Nodes,
   * NodeClaims and instances are in).
   */
  spotTypesSoFar(): string[] {
    const objects = <T>(source: SourceName) => [...(this.#objects.get(source)?.values() ?? [])] as T[];
    return spotTypesInPlay({
      nodes: objects('nodes'),
      nodeClaims: objects('nodeclaims'),
      instances: [...this.#instances.values()],
    });
  }

  finish(clusterOption: string | undefined): MergeResult {
    this.#notices.push(...this.#duplicates.notes());
    const setAside = this.#noteSetAside();
    const cluster = this.#clusterInfo();
    const objects = <T>(source: SourceName) => [...(this.#objects.get(source)?.values() ?? [])] as T[];
    const snapshot: ClusterSnapshot = {
      ...emptySnapshot(''),
      captured: this.#captured,
      gaps: inSourceOrder([...this.#gaps.values(), ...this.#truncatedSources(), ...this.#setAsideSources()]),
      pods: objects('pods'),
      deployments: objects('deployments'),
      replicaSets: objects('replicasets'),
      nodes: objects('nodes'),
      events: [...this.#events.values()],
      configMaps: objects('configmaps'),
      services: objects('services'),
      crds: objects('crds'),
      nodeClaims: objects('nodeclaims'),
      nodePools: objects('nodepools'),
      nodeClasses: objects('ec2nodeclasses'),
      pdbs: objects('pdbs'),
      volumeAttachments: objects('volumeattachments'),
      ...(cluster ? { cluster } : {}),
      instances: [...this.#instances.values()],
      fargateProfiles: [...this.#fargateProfiles.values()],
      accessEntries: [...this.#accessEntries.values()],
      launchTemplates: [...this.#launchTemplates.values()],
      instanceProfiles: [...this.#instanceProfiles.values()],
      subnets: [...this.#subnets.values()],
      instanceTypes: [...this.#instanceTypes.values()],
      spotPrices: [...this.#spotPrices.values()],
      logs: this.#logs,
      webhookConfigurations: objects('webhookconfigurations'),
      endpoints: objects('endpoints'),
      refusedWrites: this.#refusedWrites,
    };
    const evidence = {
      option: clusterOption,
      cluster,
      configured: controllerClusterNames(controllersOf(snapshot)),
      instances: snapshot.instances,
    };
    snapshot.clusterName = resolveClusterName(evidence);
    const mismatch = controllerClusterMismatch(evidence, snapshot.clusterName);
    if (mismatch) this.#notices.push(mismatch);
    treatDeletedClusterAsHavingNoKubernetesObjects(snapshot);
    // Notes quote names and kinds from the data: each is one line of visible text wherever it is shown.
    return { snapshot, notices: this.#notices.map(visibleLine), setAside: setAside.map(visibleLine) };
  }

  /** One note per object set aside (a few per source, then how many more): added to the notices, and returned. */
  #noteSetAside(): string[] {
    const out: string[] = [];
    for (const [source, notes] of this.#setAside) {
      const all = [...notes.values()];
      out.push(...all.slice(0, SET_ASIDE_NOTES_PER_SOURCE));
      const more = all.length - SET_ASIDE_NOTES_PER_SOURCE;
      if (more > 0) out.push(`${source}: ${counted(more, 'more object')} set aside as malformed`);
    }
    this.#notices.push(...out);
    return out;
  }

  /** A source with objects set aside lists fewer than there are: nothing may be judged missing from it. */
  #setAsideSources(): Gap[] {
    return [...this.#setAside].filter(([, notes]) => notes.size > 0).map(([source, notes]) => setAsideGap(source, notes.size));
  }

  /**
   * A paginated output of which only the first pages were captured lists some of the objects as
   * if they were all: a gap, so that nothing is judged missing because it is on the next page.
   */
  #truncatedSources(): Gap[] {
    return [...this.#pages]
      .filter(([, pages]) => pages.more !== undefined && !pages.last)
      .map(([source, { more }]) => ({
        source,
        error: `only part was captured: the output ends with ${more}, and no last page was given (capture it again without --max-items or a limit)`,
      }));
  }

  /** describe-cluster output or "no cluster found" errors: all must be about one cluster. */
  #clusterInfo(): ClusterInfo | undefined {
    const names = [...new Set([...this.#clusters.map((c) => c.name), ...this.#goneClusters])].sort();
    if (names.length > 1) {
      throw new UsageError(
        `the capture describes several clusters (${names.join(', ')}): give the files of one cluster at a time`,
      );
    }
    const described = this.#clusters.at(-1);
    if (described) {
      if (this.#goneClusters.length > 0) {
        this.#notices.push(
          `cluster ${described.name} is both described and reported not found; using the describe-cluster output`,
        );
      }
      return described;
    }
    const gone = this.#goneClusters[0];
    return gone === undefined ? undefined : { name: gone, gone: true };
  }
}

function spotPriceKey(price: SpotPrice): string {
  return `${price.instanceType} ${price.availabilityZone} ${price.productDescription ?? ''} ${price.timestamp ?? ''}`;
}

function mapFor<K, V>(maps: Map<K, Map<string, V>>, key: K): Map<string, V> {
  let map = maps.get(key);
  if (!map) {
    map = new Map();
    maps.set(key, map);
  }
  return map;
}

/** A described entry wins over one only listed by name, whatever the file order. */
function keepDescribed<T extends { described: boolean }>(map: Map<string, T>, key: string, entry: T): void {
  const existing = map.get(key);
  if (existing?.described && !entry.described) return;
  map.set(key, entry);
}

/** `list-instance-profiles` omits tags that `get-instance-profile` prints: keep what either says. */
function mergeInstanceProfile(existing: InstanceProfile | undefined, next: InstanceProfile): InstanceProfile {
  if (!existing) return next;
  return {
    ...existing,
    ...next,
    roles: next.roles.length > 0 ? next.roles : existing.roles,
    tags: { ...existing.tags, ...next.tags },
  };
}

function countedKinds(counts: ReadonlyMap<string, number>): string {
  return counted(
    [...counts.values()].reduce((a, b) => a + b, 0),
    'object',
  );
}

function kindList(counts: ReadonlyMap<string, number>): string {
  return [...counts].map(([kind, n]) => `${n} ${kind}`).join(', ');
}
