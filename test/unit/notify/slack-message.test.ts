import type { SNSEvent } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Alert, ChatNotification } from '../../../src/domain/alert.ts';
import { alertMessageAttributes, chatNotificationOf } from '../../../src/domain/chat-notification.ts';
import {
  SLACK_LIMITS,
  sectionTexts,
  slackPayloadOf,
  toMrkdwn,
  type SlackBlock,
  type SlackPayload,
  type TopicMessage,
} from '../../../src/notify/slack-message.ts';
import { sampleEvent } from '../../support/lambda.ts';

function topicMessageOf(name: string): TopicMessage {
  const sns = sampleEvent<SNSEvent>(name).Records[0]?.Sns;
  if (!sns) throw new Error(`${name} has no record`);
  const attributes = Object.fromEntries(Object.entries(sns.MessageAttributes).map(([k, a]) => [k, a.Value]));
  return { message: sns.Message, subject: sns.Subject ?? undefined, attributes };
}

function alert(overrides: Partial<Alert> = {}): Alert {
  return {
    event: 'opened',
    severity: 'warning',
    cluster: 'prod-eu',
    code: 'ORPHANED_INSTANCE',
    title: 'Instance i-0abc123 of NodePool default has no NodeClaim',
    description: 'Launched 2h ago, matched by no NodeClaim.',
    nextSteps: ['aws ec2 terminate-instances --instance-ids i-0abc123'],
    threadId: 'f00d',
    ...overrides,
  };
}

function messageOf(a: Alert, attributes = true): TopicMessage {
  return { message: JSON.stringify(chatNotificationOf(a)), attributes: attributes ? alertMessageAttributes(a) : {} };
}

const blocksOf = (payload: SlackPayload): SlackBlock[] => payload.blocks ?? [];
const headerOf = (payload: SlackPayload) => blocksOf(payload).find((b) => b.type === 'header')?.text.text;
const sectionsOf = (payload: SlackPayload) => blocksOf(payload).flatMap((b) => (b.type === 'section' ? [b.text.text] : []));
const contextOf = (payload: SlackPayload) =>
  blocksOf(payload).flatMap((b) => (b.type === 'context' ? b.elements.map((e) => e.text) : []));

function expectWithinBlockKitLimits(payload: SlackPayload): void {
  const blocks = blocksOf(payload);
  expect(blocks.length).toBeLessThanOrEqual(SLACK_LIMITS.blocks);
  for (const block of blocks) {
    if (block.type === 'header') expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.headerText);
    if (block.type === 'section') {
      expect(block.text.text.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
      expect(block.text.text.trim()).not.toBe('');
      // Every code block a section opens, it closes.
      expect(block.text.text.split('```').length % 2).toBe(1);
    }
    if (block.type === 'context') expect(block.elements.length).toBeLessThanOrEqual(SLACK_LIMITS.contextElements);
  }
}

describe('slackPayloadOf: a chat notification', () => {
  it('renders the sample alert as header, description, next steps with commands in code blocks, and context', () => {
    // Prepare
    const input = topicMessageOf('slack-notify.alert');

    // Act
    const payload = slackPayloadOf(input);

    // Assess
    expect(payload.text).toBe('[critical] aws-2026-eks: 2 NodeClaims of NodePool default launched but never registered a Node');
    expect(blocksOf(payload).map((b) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(headerOf(payload)).toBe(
      ':red_circle: aws-2026-eks: 2 NodeClaims of NodePool default launched but never registered a Node',
    );
    const [description, steps] = sectionsOf(payload);
    expect(description).toContain(
      '*Cause:* `NODE_ROLE_NOT_MAPPED`: Node role arn:aws:iam::069057294951:role/aws-2026-eks-karpenter-node',
    );
    expect(description).toContain('\n• NodeClaim default-kb85v: instance i-01d1ff6c07a0e70f9');
    expect(description).not.toContain('**');
    expect(steps).toMatch(/^\*Next steps\*\n\*1\.\*\n```\nkubectl edit configmap aws-auth -n kube-system/);
    expect(steps).toContain(
      '*2.* or let eksctl add the entry:\n```\neksctl create iamidentitymapping --cluster aws-2026-eks --region us-east-1 --arn arn:aws:iam::069057294951:role/aws-2026-eks-karpenter-node',
    );
    expect(steps).toContain('*3.*\n```\nkubectl get nodes -w   # the waiting instances register');
    expect(contextOf(payload)).toEqual([
      '*Cluster:* aws-2026-eks',
      '*Severity:* critical',
      '*Code:* NODECLAIM_NOT_REGISTERED',
      '*Event:* opened',
    ]);
    expectWithinBlockKitLimits(payload);
  });

  it('marks a resolved alert with a check mark and has no next steps', () => {
    // Act
    const payload = slackPayloadOf(topicMessageOf('slack-notify.resolved'));

    // Assess
    expect(headerOf(payload)).toMatch(/^:white_check_mark: aws-2026-eks: 2 NodeClaims/);
    expect(sectionsOf(payload).join('\n')).not.toContain('Next steps');
    expect(contextOf(payload)).toContain('*Event:* resolved');
  });

  it.each([
    ['critical', ':red_circle:'],
    ['warning', ':large_orange_circle:'],
    ['info', ':large_blue_circle:'],
  ] as const)('shows severity %s as %s', (severity, emoji) => {
    // Act
    const payload = slackPayloadOf(messageOf(alert({ severity })));

    // Assess
    expect(headerOf(payload)).toBe(`${emoji} prod-eu: Instance i-0abc123 of NodePool default has no NodeClaim`);
  });

  it('shows the Markdown-escaped chat title as the plain text it stands for in the header', () => {
    // Act
    const payload = slackPayloadOf(messageOf(alert({ title: 'NodePool *a_b* [x](y) has `no` NodeClaim' })));

    // Assess
    expect(headerOf(payload)).toBe(':large_orange_circle: prod-eu: NodePool *a_b* [x](y) has `no` NodeClaim');
  });

  it('reads severity, cluster, code and event from the metadata when the message has no attributes', () => {
    // Act
    const payload = slackPayloadOf(messageOf(alert({ event: 'reminder', severity: 'critical' }), false));

    // Assess
    expect(headerOf(payload)).toMatch(/^:red_circle: /);
    expect(contextOf(payload)).toEqual([
      '*Cluster:* prod-eu',
      '*Severity:* critical',
      '*Code:* ORPHANED_INSTANCE',
      '*Event:* reminder',
    ]);
  });

  it('cuts a long title to the header limit, keeping the whole title in the notification text', () => {
    // Prepare
    const title = `NodeClaim ${'very-long-name-'.repeat(12)}end`;

    // Act
    const payload = slackPayloadOf(messageOf(alert({ title })));

    // Assess
    const header = headerOf(payload) ?? '';
    expect(header.length).toBe(SLACK_LIMITS.headerText);
    expect(header.endsWith('…')).toBe(true);
    expect(payload.text).toContain('end');
  });

  it('splits a long description at line ends into sections of at most 3000 characters, losing nothing', () => {
    // Prepare
    const lines = Array.from({ length: 120 }, (_, i) => `- NodeClaim default-${String(i).padStart(3, '0')}: ${'x'.repeat(60)}`);
    const notification: ChatNotification = {
      version: '1.0',
      source: 'custom',
      content: { title: 'Many NodeClaims', description: lines.join('\n') },
    };

    // Act
    const payload = slackPayloadOf({ message: JSON.stringify(notification), attributes: {} });

    // Assess
    const sections = sectionsOf(payload);
    expect(sections.length).toBeGreaterThan(1);
    for (const s of sections) expect(s.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
    expect(sections.join('\n')).toBe(lines.map((l) => l.replace(/^- /, '• ')).join('\n'));
    expectWithinBlockKitLimits(payload);
  });

  it('closes a code block cut between sections and opens it again in the next', () => {
    // Prepare
    const yaml = Array.from({ length: 200 }, (_, i) => `  key${i}: ${'v'.repeat(30)}`).join('\n');

    // Act
    const sections = sectionTexts(toMrkdwn(`Apply this:\n\`\`\`yaml\n${yaml}\n\`\`\``));

    // Assess
    expect(sections.length).toBeGreaterThan(1);
    expect(sections[0]).toBe('Apply this:');
    for (const s of sections.slice(1)) {
      expect(s.startsWith('```\n')).toBe(true);
      expect(s.endsWith('\n```')).toBe(true);
    }
    expect(sections.join('\n').replace(/\n```\n```\n/g, '\n')).toBe(`Apply this:\n\`\`\`\n${yaml}\n\`\`\``);
  });

  it('cuts a line longer than a section at a space', () => {
    // Prepare
    const words = Array.from({ length: 800 }, (_, i) => `word${i}`).join(' ');

    // Act
    const sections = sectionTexts(words);

    // Assess
    expect(sections.length).toBeGreaterThan(1);
    for (const s of sections) {
      expect(s.length).toBeLessThanOrEqual(SLACK_LIMITS.sectionText);
      expect(s).toMatch(/^word\d+.*word\d+$/);
    }
    expect(sections.join(' ')).toBe(words);
  });

  it('keeps at most 50 blocks, saying how many sections were left out', () => {
    // Prepare: 300 long steps need far more than 48 sections.
    const nextSteps = Array.from({ length: 300 }, (_, i) => `step ${i}: ${'y'.repeat(600)}`);
    const notification: ChatNotification = {
      version: '1.0',
      source: 'custom',
      content: { title: 'Too much', description: 'Short.', nextSteps },
    };

    // Act
    const payload = slackPayloadOf({ message: JSON.stringify(notification), attributes: { cluster: 'prod-eu' } });

    // Assess
    const blocks = blocksOf(payload);
    expect(blocks).toHaveLength(SLACK_LIMITS.blocks);
    expect(blocks.at(-1)?.type).toBe('context');
    expect(sectionsOf(payload).at(-1)).toMatch(/^_\d+ more section\(s\) did not fit in one Slack message\._$/);
    expectWithinBlockKitLimits(payload);
  });

  it('stays within the Block Kit limits whatever the title, description and steps', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400 }),
        fc.string({ maxLength: 12_000 }),
        fc.array(fc.string({ maxLength: 4000 }), { maxLength: 40 }),
        (title, description, nextSteps) => {
          const notification: ChatNotification = { version: '1.0', source: 'custom', content: { title, description, nextSteps } };
          expectWithinBlockKitLimits(slackPayloadOf({ message: JSON.stringify(notification), attributes: {} }));
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('toMrkdwn', () => {
  it('turns Markdown emphasis, links, headings and bullets into Slack mrkdwn', () => {
    expect(toMrkdwn('**Cause:** a __b__ *c* ~~d~~')).toBe('*Cause:* a *b* _c_ ~d~');
    expect(toMrkdwn('See [the docs](https://karpenter.sh/docs/?a=1&b=2).')).toBe(
      'See <https://karpenter.sh/docs/?a=1&amp;b=2|the docs>.',
    );
    expect(toMrkdwn('## Evidence\n- one\n  * two')).toBe('*Evidence*\n• one\n  • two');
  });

  it('escapes &, < and > so a message cannot ping @channel, and leaves code spans and blocks as written', () => {
    expect(toMrkdwn('<!channel> a & b')).toBe('&lt;!channel&gt; a &amp; b');
    expect(toMrkdwn('run `kubectl get **all** -l a=<b>` now')).toBe('run `kubectl get **all** -l a=&lt;b&gt;` now');
    expect(toMrkdwn('```sh\necho **x** <y>\n```')).toBe('```\necho **x** &lt;y&gt;\n```');
  });
});

describe('slackPayloadOf: a CloudWatch alarm notification', () => {
  const alarmOf = (fields: Record<string, unknown>): TopicMessage => ({
    message: JSON.stringify({
      AlarmName: 'karpenter-sentinel-prod-scan-failures',
      NewStateValue: 'ALARM',
      NewStateReason: 'Threshold Crossed: 3 out of the last 3 datapoints were greater than or equal to the threshold (1.0).',
      ...fields,
    }),
    attributes: {},
  });

  it('renders the sample alarm as a header with its name and state, its description, its reason, and where', () => {
    // Act
    const payload = slackPayloadOf(topicMessageOf('slack-notify.cloudwatch-alarm'));

    // Assess
    expect(payload.text).toBe('ALARM: karpenter-sentinel-prod-scan-dlq-not-empty');
    expect(headerOf(payload)).toBe(':rotating_light: ALARM: karpenter-sentinel-prod-scan-dlq-not-empty');
    expect(sectionsOf(payload)).toEqual([
      "Scan messages that could not be processed (malformed) reached the scan DLQ after 3 receives. The scan function's logs name what was wrong.",
      '*Reason:* Threshold Crossed: 1 out of the last 1 datapoints [2.0 (01/01/26 02:10:00)] was greater than the threshold (0.0) (minimum 1 datapoint for OK -&gt; ALARM transition).',
    ]);
    expect(contextOf(payload)).toEqual([
      '*State:* OK → ALARM',
      '*Region:* US East (N. Virginia)',
      '*Account:* 069057294951',
      '*Changed:* 2026-01-01T02:15:38.512+0000',
    ]);
    expectWithinBlockKitLimits(payload);
  });

  it('marks the return to OK with a check mark, and leaves out a null description', () => {
    // Act
    const payload = slackPayloadOf(alarmOf({ NewStateValue: 'OK', OldStateValue: 'ALARM', AlarmDescription: null }));

    // Assess
    expect(headerOf(payload)).toBe(':white_check_mark: OK: karpenter-sentinel-prod-scan-failures');
    expect(sectionsOf(payload)).toEqual([
      '*Reason:* Threshold Crossed: 3 out of the last 3 datapoints were greater than or equal to the threshold (1.0).',
    ]);
    expect(contextOf(payload)).toEqual(['*State:* ALARM → OK']);
  });

  it('shows INSUFFICIENT_DATA with a neutral bell', () => {
    expect(headerOf(slackPayloadOf(alarmOf({ NewStateValue: 'INSUFFICIENT_DATA' })))).toBe(
      ':bell: INSUFFICIENT_DATA: karpenter-sentinel-prod-scan-failures',
    );
  });

  it('escapes the description and reason so an alarm cannot ping @channel', () => {
    // Act
    const payload = slackPayloadOf(alarmOf({ AlarmDescription: 'Page <!channel> & fix', NewStateReason: 'x > 0 <@U123>' }));

    // Assess
    expect(sectionsOf(payload)).toEqual(['Page &lt;!channel&gt; &amp; fix', '*Reason:* x &gt; 0 &lt;@U123&gt;']);
  });

  it('stays within the Block Kit limits whatever the name, description and reason', () => {
    // Alarm texts are plain: no backticks, so no code fence left open (expectWithinBlockKitLimits checks fences).
    const text = (minLength: number) => fc.string({ minLength }).map((t) => t.replaceAll('`', "'"));
    fc.assert(
      fc.property(text(1), text(0), text(1), (name, description, reason) => {
        const payload = slackPayloadOf(
          alarmOf({
            AlarmName: `a${name.repeat(50)}`,
            AlarmDescription: description.repeat(400),
            NewStateReason: `r${reason.repeat(900)}`,
          }),
        );
        expect(headerOf(payload)).toMatch(/^:rotating_light: ALARM: a/);
        expectWithinBlockKitLimits(payload);
      }),
    );
  });
});

describe('slackPayloadOf: anything else on the topic', () => {
  it('posts the plain-text sample as escaped text, with its subject, and no blocks', () => {
    // Act
    const payload = slackPayloadOf(topicMessageOf('slack-notify.plain-text'));

    // Assess
    expect(payload).toEqual({
      text: 'Test from ops\nTest message from the AWS console: checking the karpenter-sentinel alert topic reaches Slack &lt;!channel&gt; &amp; friends.',
    });
  });

  it('posts JSON that is neither a chat notification nor a whole alarm notification (no state reason) as its text', () => {
    // Prepare
    const alarm = JSON.stringify({ AlarmName: 'karpenter-sentinel-scan-dlq', NewStateValue: 'ALARM' });

    // Act
    const payload = slackPayloadOf({ message: alarm, attributes: {} });

    // Assess
    expect(payload.blocks).toBeUndefined();
    expect(payload.text).toBe(alarm);
  });

  it.each([
    ['a notification of another source', JSON.stringify({ version: '1.0', source: 'aws.health', content: { description: 'x' } })],
    ['a notification without description', JSON.stringify({ version: '1.0', source: 'custom', content: { title: 'x' } })],
    ['a JSON string', JSON.stringify('hello')],
  ])('posts %s as plain text', (_case, message) => {
    expect(slackPayloadOf({ message, attributes: {} })).toEqual({ text: message.replaceAll('&', '&amp;') });
  });

  it('says so for an empty message and cuts a huge one below Slack’s text limit', () => {
    expect(slackPayloadOf({ message: '  ', attributes: {} })).toEqual({ text: '(empty message)' });
    const huge = slackPayloadOf({ message: 'z'.repeat(100_000), attributes: {} });
    expect(huge.text.length).toBe(SLACK_LIMITS.plainText);
  });
});
