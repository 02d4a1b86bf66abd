/**
 * A name planted in the cluster reaches people through the SNS alert (rendered by Amazon Q
 * Developer in chat applications as Markdown) and the Slack message built from it. Through the
 * real detector, alert planner, SNS formatter and Slack builder, it must stay text: no link, no
 * mention, no emphasis, no raw control character or bidi override.
 */
import { describe, expect, it } from 'vitest';

import { CLI_ACTIONS, DEFAULT_DETECTION } from '../../../src/domain/settings.ts';
import { isVisible } from '../../../src/domain/visible.ts';
import { alertMessageAttributes, chatNotificationOf } from '../../../src/domain/chat-notification.ts';
import { planScanAlerts } from '../../../src/notify/finding-alerts.ts';
import { slackPayloadOf } from '../../../src/notify/slack-message.ts';
import { analyze } from '../../../src/usecases/analyze.ts';
import { snapshotOf } from '../../factories/aws.ts';
import { ec2NodeClass } from '../../factories/karpenter.ts';

const NOW = new Date('2026-01-01T01:00:00Z');
const HOSTILE =
  '[md](https://evil.example) <!channel> <https://evil.example|click> *bold* \u001b[2J\u001b]0;pwn\u0007 \u202Egnp.exe';

function hostileAlert() {
  const nodeClass = ec2NodeClass({ name: HOSTILE, amiSelectorTerms: [{ name: `ami ${HOSTILE}` }] });
  const report = analyze(snapshotOf({ nodeClasses: [nodeClass] }), {
    detection: DEFAULT_DETECTION,
    actions: CLI_ACTIONS,
    now: NOW,
  });
  const plan = planScanAlerts({
    cluster: 'demo',
    report,
    open: [],
    now: NOW,
    settings: { topicArn: 'arn:aws:sns:eu-west-1:069057294951:alerts', minSeverity: 'warning', reminderIntervalMs: 3_600_000 },
  });
  const alert = plan.alerts.find((a) => a.code === 'AMI_SELECTOR_UNSCOPED');
  if (!alert) throw new Error('no AMI_SELECTOR_UNSCOPED alert');
  return alert;
}

/** Every string of a JSON value. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value && typeof value === 'object') return Object.values(value).flatMap(stringsOf);
  return [];
}

describe('a hostile EC2NodeClass name in alerts', () => {
  const alert = hostileAlert();
  const notification = chatNotificationOf(alert);
  const attributes = alertMessageAttributes(alert);
  const slack = slackPayloadOf({ message: JSON.stringify(notification), subject: 'alert', attributes });

  it('reaches the SNS chat notification as escaped Markdown, with no raw control character', () => {
    for (const text of stringsOf(notification)) expect(isVisible(text.replaceAll('\n', ''))).toBe(true);
    const description = notification.content.description;
    expect(description).toContain(
      '\\[md\\]\\(https://evil.example) \\<!channel\\> \\<https://evil.example\\|click\\> \\*bold\\*',
    );
    expect(description).toContain('\\x1b\\[2J\\x1b\\]0;pwn\\x07 \\u202egnp.exe');
    expect(description).not.toContain('[md](https://');
  });

  it('reaches Slack with no link, no mention, no emphasis and no raw control character', () => {
    for (const text of stringsOf(slack)) expect(isVisible(text.replaceAll('\n', ''))).toBe(true);
    // The header is plain_text, which Slack shows as it is; everything else is mrkdwn.
    const mrkdwn = [slack.text, ...(slack.blocks ?? []).flatMap((b) => (b.type === 'header' ? [] : stringsOf(b)))];
    const prose = mrkdwn.map((t) => t.replace(/```[\s\S]*?```/g, '')).join('\n');
    expect(prose).not.toMatch(/<https?:|<!channel>|<!here>|\|md>|\|click>/);
    expect(prose).not.toContain('*bold*');
    expect(prose).toContain('&lt;!channel&gt;');
    expect(prose).toContain('\\x1b[2J');
    expect(prose).toContain('\\u202egnp.exe');
  });

  it('keeps the patch command copyable, the hostile name inside one shell-quoted argument', () => {
    const steps = stringsOf(slack.blocks).join('\n');
    expect(steps).toContain(`kubectl patch ec2nodeclass '[md](https://evil.example) &lt;!channel&gt;`);
  });
});
