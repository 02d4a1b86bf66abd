/**
 * Karpenter's interruption queue as the account has it: SQS (the queue and its attributes),
 * EventBridge (the rules that send to it) and CloudWatch (the age of its oldest message). Reads
 * only: no ReceiveMessage, no DeleteMessage, ever (a message taken from Karpenter's queue is an
 * interruption Karpenter never handles; docs/deploy.md, "What each role may touch").
 */
import { GetMetricStatisticsCommand, type CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DescribeRuleCommand, ListRuleNamesByTargetCommand, type EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { GetQueueAttributesCommand, GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { InterruptionQueue, QueueRule } from '../../domain/interruption-queue.ts';
import { MAX_DESCRIBED_RULES, QUEUE_AGE_WINDOW_SECONDS } from '../../domain/queue-lookup.ts';
import type { InterruptionQueuePort } from '../../ports/aws.ts';
import { SourceError } from '../../ports/errors.ts';
import { awsCall, isNonExistentQueue, isNotFound, sourceError } from './errors.ts';

/** Pages of ListRuleNamesByTarget followed: one is the norm (100 names a page), this many is already absurd. */
const MAX_RULE_PAGES = 10;

export interface InterruptionQueueClients {
  sqs: SQSClient;
  events: EventBridgeClient;
  cloudwatch: CloudWatchClient;
}

export class InterruptionQueueAdapter implements InterruptionQueuePort {
  readonly #clients: InterruptionQueueClients;

  constructor(clients: InterruptionQueueClients) {
    this.#clients = clients;
  }

  async describeQueue(name: string): Promise<InterruptionQueue> {
    let url: string;
    try {
      const output = await this.#clients.sqs.send(new GetQueueUrlCommand({ QueueName: name }));
      if (!output.QueueUrl)
        throw new SourceError('GetQueueUrl failed: unexpected response: no QueueUrl', { code: 'UnexpectedResponse' });
      url = output.QueueUrl;
    } catch (error) {
      if (isNonExistentQueue(error)) return { name, exists: false };
      throw sourceError('GetQueueUrl', error);
    }
    try {
      const output = await this.#clients.sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }));
      return { name, exists: true, url, attributes: { ...output.Attributes } };
    } catch (error) {
      // Deleted between the two calls: it does not exist now.
      if (isNonExistentQueue(error)) return { name, exists: false };
      throw sourceError('GetQueueAttributes', error);
    }
  }

  async rulesTargeting(queueArn: string): Promise<QueueRule[]> {
    const names = await awsCall('ListRuleNamesByTarget', async () => {
      const all: string[] = [];
      let token: string | undefined;
      for (let page = 0; page < MAX_RULE_PAGES; page++) {
        const output = await this.#clients.events.send(
          new ListRuleNamesByTargetCommand({ TargetArn: queueArn, ...(token ? { NextToken: token } : {}) }),
        );
        all.push(...(output.RuleNames ?? []).filter((n) => n !== ''));
        token = output.NextToken;
        if (!token) return all;
      }
      throw new SourceError(`listing stopped after ${MAX_RULE_PAGES} pages: the endpoint keeps returning a next token`, {
        code: 'TooManyPages',
      });
    });
    const described: QueueRule[] = [];
    // One by one: five calls at most in practice, and EventBridge throttles bursts per account.
    for (const name of names.slice(0, MAX_DESCRIBED_RULES)) {
      const rule = await this.#describeRule(name);
      if (rule) described.push(rule);
    }
    return [...described, ...names.slice(MAX_DESCRIBED_RULES).map((name) => ({ name }))];
  }

  /** undefined when the rule was deleted since it was listed. */
  async #describeRule(name: string): Promise<QueueRule | undefined> {
    try {
      const output = await this.#clients.events.send(new DescribeRuleCommand({ Name: name }));
      return {
        name,
        ...(output.State ? { state: output.State } : {}),
        ...(output.EventPattern ? { eventPattern: output.EventPattern } : {}),
      };
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw sourceError('DescribeRule', error);
    }
  }

  async oldestMessageAgeSeconds(queueName: string, now: Date): Promise<number | undefined> {
    const output = await awsCall('GetMetricStatistics', () =>
      this.#clients.cloudwatch.send(
        new GetMetricStatisticsCommand({
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateAgeOfOldestMessage',
          Dimensions: [{ Name: 'QueueName', Value: queueName }],
          StartTime: new Date(now.getTime() - QUEUE_AGE_WINDOW_SECONDS * 1000),
          EndTime: now,
          Period: QUEUE_AGE_WINDOW_SECONDS,
          Statistics: ['Maximum'],
        }),
      ),
    );
    const maxima = (output.Datapoints ?? []).flatMap((d) => (typeof d.Maximum === 'number' ? [d.Maximum] : []));
    return maxima.length > 0 ? Math.max(...maxima) : undefined;
  }
}
