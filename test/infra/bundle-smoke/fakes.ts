/**
 * The AWS APIs and the Slack webhook a bundle talks to, faked on 127.0.0.1 at the wire level: the
 * bundled SDK serialises, signs, sends and parses exactly as it does in Lambda. Each fake records
 * every request; an unexpected one is answered 400 (and stays in the record for the test to see).
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Answerer, FakeAnswer } from '../../support/http-fake.ts';

export interface FakeCluster {
  name: string;
  status: string;
  tags: Record<string, string>;
}

/** EKS (REST JSON): ListClusters and DescribeCluster. */
export function eksApi(clusters: readonly FakeCluster[]): Answerer {
  return ({ method, path }) => {
    const url = new URL(path, 'http://eks');
    if (method === 'GET' && url.pathname === '/clusters') return json(200, { clusters: clusters.map((c) => c.name) });
    const name = /^\/clusters\/([^/]+)$/.exec(url.pathname)?.[1];
    const cluster = clusters.find((c) => c.name === decodeURIComponent(name ?? ''));
    if (method === 'GET' && cluster)
      return json(200, {
        cluster: {
          ...cluster,
          arn: `arn:aws:eks:eu-west-1:111122223333:cluster/${cluster.name}`,
          version: '1.32',
          createdAt: 1_767_225_600,
          accessConfig: { authenticationMode: 'API_AND_CONFIG_MAP' },
        },
      });
    return json(404, { message: `no such cluster: ${method} ${path}` }, { 'x-amzn-errortype': 'ResourceNotFoundException' });
  };
}

/** SQS (AWS JSON 1.0): SendMessageBatch, every entry accepted with the MD5 the SDK checks. */
export function sqsApi(): Answerer {
  return ({ headers, body }) => {
    if (headers['x-amz-target'] !== 'AmazonSQS.SendMessageBatch')
      return awsJsonError('1.0', 'com.amazonaws.sqs#UnsupportedOperation', `unexpected ${String(headers['x-amz-target'])}`);
    const { Entries = [] } = JSON.parse(body) as { Entries?: { Id: string; MessageBody: string }[] };
    const Successful = Entries.map((e) => ({ Id: e.Id, MessageId: randomUUID(), MD5OfMessageBody: md5(e.MessageBody) }));
    return { status: 200, contentType: 'application/x-amz-json-1.0', body: JSON.stringify({ Successful, Failed: [] }) };
  };
}

/** SSM (AWS JSON 1.1): GetParameter of one SecureString. */
export function ssmApi(name: string, value: string): Answerer {
  return ({ headers, body }) => {
    const request = JSON.parse(body || '{}') as { Name?: string };
    if (headers['x-amz-target'] !== 'AmazonSSM.GetParameter' || request.Name !== name)
      return awsJsonError('1.1', 'ParameterNotFound', `unexpected ${String(headers['x-amz-target'])} ${String(request.Name)}`);
    const Parameter = {
      Name: name,
      Type: 'SecureString',
      Value: value,
      Version: 3,
      LastModifiedDate: 1_767_225_600,
      ARN: `arn:aws:ssm:eu-west-1:111122223333:parameter${name}`,
      DataType: 'text',
    };
    return { status: 200, contentType: 'application/x-amz-json-1.1', body: JSON.stringify({ Parameter }) };
  };
}

/** A Slack incoming webhook answering every post with `status` (Slack answers 200 `ok`). */
export function slackWebhook(status: () => number): Answerer {
  return () => {
    const code = status();
    return { status: code, contentType: 'text/plain', body: code === 200 ? 'ok' : 'internal_error' };
  };
}

function json(status: number, value: unknown, headers: Record<string, string> = {}): FakeAnswer {
  return { status, contentType: 'application/json', headers, body: JSON.stringify(value) };
}

function awsJsonError(version: '1.0' | '1.1', type: string, message: string): FakeAnswer {
  return { status: 400, contentType: `application/x-amz-json-${version}`, body: JSON.stringify({ __type: type, message }) };
}

function md5(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}

export interface FakeInstance {
  id: string;
  state: string;
  tags: Record<string, string>;
}

export interface FakeLaunchTemplate {
  id: string;
  name: string;
  tags: Record<string, string>;
}

/** EC2 (EC2 query protocol, XML): DescribeInstances answers `instances`, DescribeLaunchTemplates `launchTemplates`. */
export function ec2Api(instances: readonly FakeInstance[], launchTemplates: readonly FakeLaunchTemplate[] = []): Answerer {
  return ({ body }) => {
    const action = new URLSearchParams(body).get('Action');
    if (action === 'DescribeInstances') {
      const items = instances.map(
        (i) =>
          `<item><instanceId>${i.id}</instanceId><instanceType>m6g.large</instanceType>` +
          `<instanceState><code>16</code><name>${i.state}</name></instanceState>` +
          `<launchTime>2026-01-01T00:00:00.000Z</launchTime>` +
          `<placement><availabilityZone>eu-west-1a</availabilityZone></placement>` +
          `<tagSet>${xmlTags(i.tags, 'item', 'key', 'value')}</tagSet></item>`,
      );
      const reservation = `<item><reservationId>r-0123456789abcdef0</reservationId><ownerId>111122223333</ownerId><instancesSet>${items.join('')}</instancesSet></item>`;
      return ec2Xml('DescribeInstances', `<reservationSet>${instances.length > 0 ? reservation : ''}</reservationSet>`);
    }
    if (action === 'DescribeLaunchTemplates') {
      const items = launchTemplates.map(
        (t) =>
          `<item><launchTemplateId>${t.id}</launchTemplateId><launchTemplateName>${t.name}</launchTemplateName>` +
          `<createTime>2026-01-01T00:00:00.000Z</createTime><tagSet>${xmlTags(t.tags, 'item', 'key', 'value')}</tagSet></item>`,
      );
      return ec2Xml('DescribeLaunchTemplates', `<launchTemplates>${items.join('')}</launchTemplates>`);
    }
    return {
      status: 400,
      contentType: 'text/xml',
      body: `<Response><Errors><Error><Code>InvalidAction</Code><Message>unexpected ${String(action)}</Message></Error></Errors><RequestID>x</RequestID></Response>`,
    };
  };
}

export interface FakeInstanceProfile {
  name: string;
  path: string;
  roles: string[];
  tags: Record<string, string>;
}

/** IAM (AWS query protocol, XML): ListInstanceProfiles and ListInstanceProfileTags. */
export function iamApi(profiles: readonly FakeInstanceProfile[]): Answerer {
  return ({ body }) => {
    const form = new URLSearchParams(body);
    const action = form.get('Action');
    if (action === 'ListInstanceProfiles') {
      const members = profiles.map(
        (p) =>
          `<member><Path>${p.path}</Path><InstanceProfileName>${p.name}</InstanceProfileName>` +
          `<InstanceProfileId>AIPAEXAMPLE${p.name.length}</InstanceProfileId>` +
          `<Arn>arn:aws:iam::111122223333:instance-profile${p.path}${p.name}</Arn><CreateDate>2026-01-01T00:00:00Z</CreateDate>` +
          `<Roles>${p.roles.map((r) => `<member><Path>/</Path><RoleName>${r}</RoleName><RoleId>AROAEXAMPLE</RoleId><Arn>arn:aws:iam::111122223333:role/${r}</Arn><CreateDate>2026-01-01T00:00:00Z</CreateDate></member>`).join('')}</Roles></member>`,
      );
      return iamXml(
        'ListInstanceProfiles',
        `<IsTruncated>false</IsTruncated><InstanceProfiles>${members.join('')}</InstanceProfiles>`,
      );
    }
    const profile = profiles.find((p) => p.name === form.get('InstanceProfileName'));
    if (action === 'ListInstanceProfileTags' && profile)
      return iamXml(
        'ListInstanceProfileTags',
        `<IsTruncated>false</IsTruncated><Tags>${xmlTags(profile.tags, 'member', 'Key', 'Value')}</Tags>`,
      );
    return {
      status: 400,
      contentType: 'text/xml',
      body: `<ErrorResponse><Error><Type>Sender</Type><Code>InvalidAction</Code><Message>unexpected ${String(action)}</Message></Error><RequestId>x</RequestId></ErrorResponse>`,
    };
  };
}

function xmlTags(tags: Record<string, string>, item: string, key: string, value: string): string {
  return Object.entries(tags)
    .map(([k, v]) => `<${item}><${key}>${k}</${key}><${value}>${v}</${value}></${item}>`)
    .join('');
}

function ec2Xml(action: string, content: string): FakeAnswer {
  const body = `<?xml version="1.0" encoding="UTF-8"?><${action}Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>00000000-0000-4000-8000-000000000000</requestId>${content}</${action}Response>`;
  return { status: 200, contentType: 'text/xml;charset=UTF-8', body };
}

function iamXml(action: string, result: string): FakeAnswer {
  const body = `<${action}Response xmlns="https://iam.amazonaws.com/doc/2010-05-08/"><${action}Result>${result}</${action}Result><ResponseMetadata><RequestId>00000000-0000-4000-8000-000000000000</RequestId></ResponseMetadata></${action}Response>`;
  return { status: 200, contentType: 'text/xml', body };
}
