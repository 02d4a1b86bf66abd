import { CLEANUP_STEPS, type CleanupResult, type CleanupStep } from '../../domain/cleanup.ts';
import { counted } from '../../domain/words.ts';
import { visibleLine as visible } from '../../domain/visible.ts';
import { PLAIN_STYLE, type Style } from './style.ts';
import { displayWidth, NO_WRAP, wrapBeforeCommand, wrapLine } from './wrap.ts';

export interface CleanupResultOptions {
  style?: Style;
  region?: string;
  /** `--nodepool`: only these NodePools and their instances; launch templates and instance profiles were left. */
  nodePools?: readonly string[];
  /** false: `--keep-nodepools`. */
  deleteNodePools: boolean;
  /** The command line as given, to run again after an error or when time ran out. */
  again: string;
  /** The same with `--apply`, for a dry run. */
  apply: string;
  /** The terminal's width: prose wraps to it; a command to run again stays whole. Default: no wrapping. */
  width?: number;
}

interface Section {
  step: CleanupStep;
  title: string;
  items: string[];
  /** `would be deleted` / `deleted`. */
  verb: { dryRun: string; applied: string };
  /** `none to delete` / `none deleted`. */
  none: { dryRun: string; applied: string };
}

/**
 * The human result: what was (or would be) done, one section per step in the order they run (a
 * step the ordering rule held back says why), the errors one per line, and a last line saying what
 * to do next. Each item wraps to the width under a hanging indent; commands are never broken.
 */
export function renderCleanupResult(result: CleanupResult, options: CleanupResultOptions): string {
  const style = options.style ?? PLAIN_STYLE;
  const width = options.width ?? NO_WRAP;
  const lines = [header(result, options, style), ''];
  // Above the steps: a cluster that does not exist changes how every section reads.
  for (const note of result.notes ?? []) lines.push(`${style.warn('Note:')} ${visible(note)}`, '');
  for (const section of sections(result)) {
    lines.push(...sectionLines(section, result, options, style));
    if (section.step === 'instances') lines.push(...notProvenLines(result, style));
    lines.push(...heldLines(section.step, result, style));
  }
  if (result.errors.length > 0) {
    lines.push('', style.severity('critical', `${counted(result.errors.length, 'error').toUpperCase()}:`));
    for (const error of result.errors) {
      const where = error.resource ? `${error.step} ${visible(error.resource)}` : error.step;
      lines.push(`  ${where}: ${visible(error.message)}`);
    }
  }
  // Items (two-space indent) hang under four spaces, headings under two.
  const wrapped = lines.flatMap((line) => wrapLine(line, width, line.startsWith('  ') ? '    ' : '  '));
  return `${[...wrapped, '', ...nextStep(result, options, style, width)].join('\n')}\n`;
}

function header(result: CleanupResult, options: CleanupResultOptions, style: Style): string {
  const parts = [`cleanup of cluster ${style.bold(visible(result.cluster))}${options.region ? ` (${options.region})` : ''}`];
  if (options.nodePools) parts.push(`only NodePools ${options.nodePools.map(visible).join(', ')}`);
  parts.push(result.dryRun ? style.dim('DRY RUN — nothing changed') : style.bold('APPLIED'));
  if (!result.complete) parts.push(style.warn('NOT COMPLETE'));
  return parts.join(' · ');
}

function sections(result: CleanupResult): Section[] {
  const deleted = {
    verb: { dryRun: 'would be deleted', applied: 'deleted' },
    none: { dryRun: 'none to delete', applied: 'none deleted' },
  };
  const terminated = {
    verb: { dryRun: 'would be terminated', applied: 'terminated' },
    none: { dryRun: 'none to terminate', applied: 'none terminated' },
  };
  return [
    { step: 'nodepools', title: 'NodePools', items: result.nodePoolsDeleted, ...deleted },
    { step: 'instances', title: 'Instances', items: result.instancesTerminated, ...terminated },
    { step: 'launch-templates', title: 'Launch templates', items: result.launchTemplatesDeleted, ...deleted },
    { step: 'instance-profiles', title: 'Instance profiles', items: result.instanceProfilesDeleted, ...deleted },
  ];
}

function sectionLines(section: Section, result: CleanupResult, options: CleanupResultOptions, style: Style): string[] {
  const left = leftAlone(section.step, options);
  if (left) return [`${section.title}: ${style.dim(`left alone (${left})`)}`];
  const held = (result.stepsNotStarted ?? []).filter((s) => s.step === section.step);
  const whole = held.find((s) => s.nodePools === undefined);
  if (whole) return [`${section.title}: ${style.warn('not started')} — ${visible(whole.reason)}`];
  const heldLines = held.map(
    (s) =>
      `  ${style.warn('not started')} for NodePool${s.nodePools?.length === 1 ? '' : 's'} ${(s.nodePools ?? []).map(visible).join(', ')} — ${visible(s.reason)}`,
  );
  const stoppedAt = result.stoppedAt === undefined ? -1 : CLEANUP_STEPS.indexOf(result.stoppedAt);
  const position = CLEANUP_STEPS.indexOf(section.step);
  if (stoppedAt >= 0 && position > stoppedAt && section.items.length === 0) {
    return [`${section.title}: ${style.warn('not reached')} (time ran out)`];
  }
  const mode = result.dryRun ? 'dryRun' : 'applied';
  const what = section.items.length === 0 ? section.none[mode] : `${section.items.length} ${section.verb[mode]}`;
  const stopped = position === stoppedAt ? ` — ${style.warn('stopped here')} (time ran out)` : '';
  return [`${section.title}: ${what}${stopped}`, ...section.items.map((item) => `  ${visible(item)}`), ...heldLines];
}

/** Instances tagged as Karpenter's that nothing proves it launched: left alone, each with why. */
function notProvenLines(result: CleanupResult, style: Style): string[] {
  const notProven = result.instancesNotProven;
  if (notProven.length === 0) return [];
  const title = `Instances not proven launched by Karpenter: ${notProven.length} ${style.warn('left alone')} (check them by hand)`;
  return [title, ...notProven.map((n) => `  ${visible(n.id)}: ${visible(n.reason)}`)];
}

/** Launch templates and instance profiles kept on purpose, each with why and the instances holding it. */
function heldLines(step: CleanupStep, result: CleanupResult, style: Style): string[] {
  const held =
    step === 'launch-templates'
      ? (result.launchTemplatesHeld ?? []).map((h) => ({ ...h, what: h.id }))
      : step === 'instance-profiles'
        ? (result.instanceProfilesHeld ?? []).map((h) => ({ ...h, what: h.name }))
        : [];
  if (held.length === 0) return [];
  const noun = step === 'launch-templates' ? 'Launch templates' : 'Instance profiles';
  return [
    `${noun} held: ${held.length} ${style.warn(result.dryRun ? 'would be kept' : 'kept')}`,
    ...held.map((h) => {
      const users = h.instances?.length ? ` (${h.instances.map(visible).join(', ')})` : '';
      return `  ${visible(h.what)}: ${visible(h.reason)}${users}`;
    }),
  ];
}

/** Why a step did nothing by design (the flags asked for it), as opposed to finding nothing. */
function leftAlone(step: CleanupStep, options: CleanupResultOptions): string | undefined {
  if (step === 'nodepools' && !options.deleteNodePools) return '--keep-nodepools';
  if ((step === 'launch-templates' || step === 'instance-profiles') && options.nodePools) {
    return '--nodepool given: they serve the whole cluster';
  }
  return undefined;
}

/** What to do next: prose, wrapped, and the command to run, never broken. */
function nextStep(result: CleanupResult, options: CleanupResultOptions, style: Style, width: number): string[] {
  // The command on a line of its own when the whole does not fit; what follows it moves before it.
  const runAgain = (prose: string, command: string, tail = '') => {
    const whole = tail ? `${prose} ${command} ${tail}` : `${prose} ${command}`;
    const lines =
      displayWidth(whole) <= width
        ? [whole]
        : wrapBeforeCommand(tail ? prose.replace(/:$/, ` ${tail}:`) : prose, command, width, '  ');
    return lines.map((line) => style.warn(line));
  };
  const again = result.dryRun ? 'run again:' : 'run again, nothing is done twice:';
  const carriesOn = `(it carries on from ${result.stoppedAt})`;
  const errors = `${counted(result.errors.length, 'error')} above: fix ${result.errors.length === 1 ? 'it' : 'them'}`;
  if (result.stoppedAt && result.errors.length > 0) {
    return runAgain(`Time ran out at ${result.stoppedAt}, and ${errors}, then ${again}`, options.again, carriesOn);
  }
  if (result.stoppedAt) return runAgain(`Time ran out: ${again}`, options.again, carriesOn);
  if (result.errors.length > 0) return runAgain(`${errors}, then ${again}`, options.again);
  if (!result.complete) return runAgain(`Not complete: ${again}`, options.again);
  const nothing = [
    result.nodePoolsDeleted,
    result.instancesTerminated,
    result.launchTemplatesDeleted,
    result.instanceProfilesDeleted,
  ].every((list) => list.length === 0);
  if (result.dryRun) {
    return nothing
      ? ['Nothing to clean up.']
      : wrapBeforeCommand('Dry run: nothing was changed. To do it:', options.apply, width, '  ');
  }
  return [nothing ? 'Complete: nothing was left to clean up.' : 'Complete: every step ran to its end without errors.'];
}
