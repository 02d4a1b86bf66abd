import { describe, expect, it } from 'vitest';
import type { Alert } from '../../../src/domain/alert.ts';
import { commandStep } from '../../../src/domain/finding.ts';
import {
  alertMessageAttributes,
  CHAT_LIMITS,
  chatNotificationOf,
  chatTitle,
  stepMarkdown,
  truncateLines,
} from '../../../src/domain/chat-notification.ts';

function alert(overrides: Partial<Alert> = {}): Alert {
  return {
    event: 'opened',
    severity: 'critical',
    cluster: 'prod',
    code: 'KARPENTER_CONTROLLER_PENDING',
    title: 'Karpenter controller karpenter/karpenter: 2 pod(s) Pending over 5m, 0 of 2 ready',
    description:
      '**Cause:** `FARGATE_SCHEDULER_RACE`: the pods carry schedulerName default-scheduler\n**Resource:** Deployment karpenter/karpenter',
    nextSteps: ['kubectl rollout restart deployment -n karpenter karpenter'],
    threadId: '490cc309601f5b5b',
    ...overrides,
  };
}

describe('chatNotificationOf', () => {
  it('builds the custom notification Amazon Q Developer in chat applications renders', () => {
    // Act
    const n = chatNotificationOf(alert());

    // Assess
    expect(n).toEqual({
      version: '1.0',
      source: 'custom',
      content: {
        textType: 'client-markdown',
        title: '[critical] prod: Karpenter controller karpenter/karpenter: 2 pod(s) Pending over 5m, 0 of 2 ready',
        description:
          '**Cause:** `FARGATE_SCHEDULER_RACE`: the pods carry schedulerName default-scheduler\n**Resource:** Deployment karpenter/karpenter',
        nextSteps: ['`kubectl rollout restart deployment -n karpenter karpenter`'],
        keywords: ['critical', 'KARPENTER_CONTROLLER_PENDING', 'prod'],
      },
      metadata: {
        threadId: 'prod/490cc309601f5b5b',
        summary: '[critical] prod: Karpenter controller karpenter/karpenter: 2 pod(s) Pending over 5m, 0 of 2 ready',
        eventType: 'opened',
        relatedResources: ['prod'],
        additionalContext: { cluster: 'prod', code: 'KARPENTER_CONTROLLER_PENDING', severity: 'critical', event: 'opened' },
      },
    });
    // what SNS carries is plain JSON
    expect(JSON.parse(JSON.stringify(n))).toEqual(n);
  });

  it('marks a resolved alert [resolved] in the same thread as its opening', () => {
    const opened = chatNotificationOf(alert());
    const resolved = chatNotificationOf(
      alert({ event: 'resolved', description: 'Resolved at 2026-01-01T04:10:00Z.', nextSteps: [] }),
    );

    expect(resolved.content.title).toBe(
      '[resolved] prod: Karpenter controller karpenter/karpenter: 2 pod(s) Pending over 5m, 0 of 2 ready',
    );
    expect(resolved.metadata?.threadId).toBe(opened.metadata?.threadId);
    expect(resolved.content.nextSteps).toEqual([]);
  });

  it('threads per cluster: the same finding in two clusters gets two threads', () => {
    expect(chatNotificationOf(alert({ cluster: 'staging' })).metadata?.threadId).not.toBe(
      chatNotificationOf(alert()).metadata?.threadId,
    );
  });

  it('leaves the cluster out of an account-wide alert', () => {
    const n = chatNotificationOf(
      alert({ cluster: '-', code: 'INTERRUPTION_SURGE', severity: 'warning', title: 'Spot interruptions surge' }),
    );

    expect(n.content.title).toBe('[warning] Spot interruptions surge');
    expect(n.content.keywords).toEqual(['warning', 'INTERRUPTION_SURGE']);
    expect(n.metadata?.relatedResources).toEqual([]);
  });

  it('keeps the title on one line within its limit', () => {
    const n = chatNotificationOf(alert({ title: `line one\nline two ${'x'.repeat(400)}` }));

    expect(n.content.title).not.toContain('\n');
    expect(n.content.title.length).toBe(CHAT_LIMITS.title);
    expect(n.content.title.endsWith('...')).toBe(true);
  });

  it('Markdown-escapes the title as it does the description, and keeps the summary plain text', () => {
    // Prepare
    const title = 'EC2NodeClass [md](https://evil.example) *bold* <!channel> `x` is not ready';

    // Act
    const n = chatNotificationOf(alert({ title }));

    // Assess
    expect(n.content.title).toBe(
      '[critical] prod: EC2NodeClass \\[md\\]\\(https://evil.example) \\*bold\\* \\<!channel\\> \\`x\\` is not ready',
    );
    expect(n.metadata?.summary).toBe(`[critical] prod: ${title}`);
  });

  it('cuts an escaped title within its limit, never between a backslash and what it escapes', () => {
    for (const pad of [0, 1]) {
      const n = chatNotificationOf(alert({ title: `${'x'.repeat(200 + pad)}${'*'.repeat(100)}` }));

      expect(n.content.title.length).toBeLessThanOrEqual(CHAT_LIMITS.title);
      expect(n.content.title).toMatch(/^\[critical\] prod: x+(\\\*)+\.\.\.$/);
    }
  });

  it('never sends an empty description (the format requires one)', () => {
    expect(chatNotificationOf(alert({ description: '  ' })).content.description).toBe(chatTitle(alert()));
  });

  it('truncates a long description at a line break and says so', () => {
    const lines = Array.from({ length: 400 }, (_, i) => `- evidence line ${i} ${'y'.repeat(30)}`);

    const d = chatNotificationOf(alert({ description: lines.join('\n') })).content.description;

    expect(d.length).toBeLessThanOrEqual(CHAT_LIMITS.description);
    expect(d.endsWith('\n... (truncated)')).toBe(true);
    // whole lines only
    const kept = d.split('\n').slice(0, -1);
    expect(kept.every((l, i) => l === lines[i])).toBe(true);
  });

  it('keeps whole steps in order while they fit, then points to the full list', () => {
    // Prepare: 10 steps of ~1000 characters
    const steps = Array.from({ length: 10 }, (_, i) => `kubectl annotate nodepool pool-${i} note=${'z'.repeat(1000)}`);

    // Act
    const rendered = chatNotificationOf(alert({ nextSteps: steps })).content.nextSteps ?? [];

    // Assess
    const last = rendered.at(-1) ?? '';
    const kept = rendered.slice(0, -1);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept.length).toBeLessThan(10);
    kept.forEach((step, i) => expect(step).toBe(`\`${steps[i]}\``));
    expect(kept.join('').length).toBeLessThanOrEqual(CHAT_LIMITS.steps);
    expect(last).toBe(`... ${10 - kept.length} more steps: \`karpenter-sentinel scan --cluster prod\` lists them all`);
  });

  it('cuts one huge step (a manifest) at a line break', () => {
    const manifest = commandStep(
      'apply this',
      `kubectl apply -f - <<'EOF'\n${Array.from({ length: 200 }, (_, i) => `  key${i}: ${'v'.repeat(20)}`).join('\n')}\nEOF`,
    );

    const [step] = chatNotificationOf(alert({ nextSteps: [manifest] })).content.nextSteps ?? [];

    expect(step?.length).toBeLessThan(CHAT_LIMITS.step + 20);
    expect(step).toContain('... (truncated)');
    expect(step?.startsWith('apply this:\n```\nkubectl apply -f -')).toBe(true);
    expect(step?.endsWith('\n```')).toBe(true);
  });
});

describe('stepMarkdown', () => {
  it('renders a commandStep as its reason and the command as code', () => {
    const step = commandStep(
      'map the node role',
      'aws eks create-access-entry --cluster-name prod --principal-arn arn:aws:iam::069057294951:role/KarpenterNodeRole-prod --type EC2_LINUX',
    );

    expect(stepMarkdown(step)).toBe(
      'map the node role: `aws eks create-access-entry --cluster-name prod --principal-arn arn:aws:iam::069057294951:role/KarpenterNodeRole-prod --type EC2_LINUX`',
    );
  });

  it('renders multi-line commands as a code block and leaves prose alone', () => {
    expect(
      stepMarkdown('kubectl patch crd nodepools.karpenter.sh --type merge -p \'\n{"spec":{"conversion":{"strategy":"None"}}}\''),
    ).toBe(
      '```\nkubectl patch crd nodepools.karpenter.sh --type merge -p \'\n{"spec":{"conversion":{"strategy":"None"}}}\'\n```',
    );
    expect(stepMarkdown('Check that the Karpenter controller is running before the next interruption.')).toBe(
      'Check that the Karpenter controller is running before the next interruption.',
    );
  });
});

describe('truncateLines', () => {
  it('leaves text within the limit alone', () => {
    expect(truncateLines('short', 10)).toBe('short');
  });

  it('cuts hard when no line break is near', () => {
    const cut = truncateLines('x'.repeat(100), 50);

    expect(cut.length).toBe(50);
    expect(cut.endsWith('... (truncated)')).toBe(true);
  });
});

describe('alertMessageAttributes', () => {
  it('gives severity, cluster, code and event as strings for subscription filter policies', () => {
    expect(
      alertMessageAttributes(alert({ event: 'remediation-failed', severity: 'warning', code: 'ORPHANED_INSTANCE' })),
    ).toEqual({
      severity: 'warning',
      cluster: 'prod',
      code: 'ORPHANED_INSTANCE',
      event: 'remediation-failed',
    });
  });
});
