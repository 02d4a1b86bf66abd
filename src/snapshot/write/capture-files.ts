import { isSetAsideGap, type ClusterSnapshot, type SourceName } from '../../domain/snapshot.ts';
import type { KubeObject } from '../../domain/kube.ts';
import { markdownCode, markdownText } from '../../domain/markdown.ts';
import { shellQuote } from '../../domain/shell.ts';
import { visibleLine } from '../../domain/visible.ts';
import { GAPS_FILE, gapsFileText } from '../gaps-file.ts';
import { awsCliDocuments, writtenAsCliError } from './aws-cli-shape.ts';
import {
  DROPPED_ANNOTATIONS,
  KEPT_CONFIGMAP,
  KEPT_ENV_VALUES,
  keptConfigMaps,
  noRedactions,
  redactObject,
  type Redactions,
} from './redact.ts';
import { eventObject, logLinesToText } from './wire.ts';
import { SNAPSHOT_SUMMARY, takenAtLine } from '../taken-at.ts';

export interface CaptureFileText {
  /** File name inside the capture folder. */
  name: string;
  text: string;
}

const KUBE_FILES: readonly { source: SourceName; file: string; objects: (s: ClusterSnapshot) => readonly KubeObject[] }[] = [
  { source: 'pods', file: 'pods.json', objects: (s) => s.pods },
  { source: 'deployments', file: 'deployments.json', objects: (s) => s.deployments },
  { source: 'replicasets', file: 'replicasets.json', objects: (s) => s.replicaSets },
  { source: 'nodes', file: 'nodes.json', objects: (s) => s.nodes },
  { source: 'configmaps', file: 'configmaps.json', objects: (s) => s.configMaps },
  { source: 'services', file: 'services.json', objects: (s) => s.services },
  { source: 'crds', file: 'customresourcedefinitions.json', objects: (s) => s.crds },
  { source: 'nodeclaims', file: 'nodeclaims.json', objects: (s) => s.nodeClaims },
  { source: 'nodepools', file: 'nodepools.json', objects: (s) => s.nodePools },
  { source: 'ec2nodeclasses', file: 'ec2nodeclasses.json', objects: (s) => s.nodeClasses },
  // Named as capture-script names them.
  { source: 'pdbs', file: 'pdb.json', objects: (s) => s.pdbs },
  { source: 'volumeattachments', file: 'volumeattachments.json', objects: (s) => s.volumeAttachments },
  { source: 'webhookconfigurations', file: 'webhookconfigurations.json', objects: (s) => s.webhookConfigurations ?? [] },
  { source: 'endpoints', file: 'endpointslices.json', objects: (s) => s.endpoints ?? [] },
];

/**
 * A snapshot as the capture files `scan --from` reads (kubectl `List`s named after their
 * resource, AWS CLI outputs, the controller's log), plus SNAPSHOT.md for the human reading a bug
 * report (the loader skips Markdown). Only captured sources are written: a missing file means
 * "not captured", an empty list "none exist". Gaps no other file shows (objects set aside as
 * malformed, with the notes `setAside` saying which and why; a Kubernetes source denied) go into
 * gaps.json, which the loader reads back. What may hold secrets is left out (redact.ts), and
 * SNAPSHOT.md says what.
 */
export function captureFiles(snapshot: ClusterSnapshot, takenAt: Date, setAside: readonly string[] = []): CaptureFileText[] {
  const files: CaptureFileText[] = [];
  const redactions = noRedactions();
  for (const { source, file, objects } of KUBE_FILES) {
    if (!snapshot.captured.has(source)) continue;
    const all = objects(snapshot);
    const kept = source === 'configmaps' ? keptConfigMaps(all, redactions) : all;
    files.push({ name: file, text: kubeList(kept.map((o) => redactObject(o, redactions))) });
  }
  if (snapshot.captured.has('events')) {
    files.push({ name: 'events.json', text: kubeList(snapshot.events.map(eventObject)) });
  }
  for (const document of awsCliDocuments(snapshot)) files.push({ name: document.name, text: document.text });
  if (snapshot.captured.has('logs')) {
    files.push({ name: 'karpenter.log', text: logLinesToText(snapshot.logs.filter((l) => !l.previous)) });
    const previous = snapshot.logs.filter((l) => l.previous);
    if (previous.length > 0) files.push({ name: 'karpenter-previous.log', text: logLinesToText(previous) });
  }
  // What the other files cannot show, so that a scan of the folder is as incomplete as the snapshot.
  const unwritten = snapshot.gaps.filter((g) => !writtenAsCliError(g));
  if (unwritten.length > 0) {
    files.push({ name: GAPS_FILE, text: gapsFileText({ gaps: unwritten, notes: setAside }) });
  }
  files.push({ name: SNAPSHOT_SUMMARY, text: summary(snapshot, takenAt, redactions, setAside) });
  return files;
}

function kubeList(items: readonly unknown[]): string {
  // One item per line: readable, diffable, and a fraction of the size of an indented 50,000-pod list.
  const body = items.map((item) => JSON.stringify(item)).join(',\n');
  return `{"apiVersion":"v1","kind":"List","metadata":{"resourceVersion":""},"items":[\n${body}\n]}\n`;
}

function summary(snapshot: ClusterSnapshot, takenAt: Date, redactions: Redactions, setAside: readonly string[]): string {
  const captured = [...snapshot.captured].sort();
  const lines = [
    `# karpenter-sentinel snapshot of ${snapshot.clusterName}`,
    '',
    takenAtLine(takenAt),
    '',
    // No --now: the scan judges at "Taken at" above. --cluster: the name, should describe-cluster have failed.
    `    karpenter-sentinel scan --from THIS-FOLDER --cluster ${visibleLine(shellQuote(snapshot.clusterName))}`,
    '',
    `Captured: ${captured.join(', ') || 'nothing'}. Secrets are never read.`,
    '',
    'Left out, as they may hold secrets (nothing the analysis reads):',
    '',
    `- the \`value\` of environment variables in every container, init and ephemeral container of pods and of deployments' and replicasets' pod templates (${redactions.envValues} left out): their \`name\` and \`valueFrom\` reference stay; ${KEPT_ENV_VALUES.join(' and ')} keep their value (the analysis reads them; no secret)`,
    `- the annotations ${DROPPED_ANNOTATIONS.map((a) => `\`${a}\``).join(', ')} (whole copies of the object as applied, env values included; ${redactions.annotations} left out)`,
    `- every ConfigMap but ${KEPT_CONFIGMAP.namespace}/${KEPT_CONFIGMAP.name} (${redactions.configMaps} left out)`,
  ];
  // Gap texts and notes quote the cluster's data: shown as visible text, never as Markdown.
  const item = (text: string) => `- ${markdownText(visibleLine(text))}`;
  const unread = snapshot.gaps.filter((g) => !isSetAsideGap(g));
  const malformed = snapshot.gaps.filter(isSetAsideGap);
  if (unread.length > 0) {
    lines.push('', 'Could not be read (so a scan of this folder is incomplete too):', '');
    for (const gap of unread) lines.push(item(`${gap.source}: ${gap.error}`));
  }
  if (malformed.length > 0) {
    lines.push(
      '',
      `Set aside as malformed: read, but a field had the wrong type, so these objects are not in the files (${GAPS_FILE} records them, and a scan of this folder reports the gap and these notes too):`,
      '',
    );
    for (const gap of malformed) lines.push(item(`${gap.source}: ${gap.error}`));
    // Each note as code: the object's name and the field path (`spec.containers[0].env`) read as they are.
    if (setAside.length > 0)
      lines.push('', 'Which objects, and why:', '', ...setAside.map((n) => `- ${markdownCode(visibleLine(n))}`));
  }
  return `${lines.join('\n')}\n`;
}
