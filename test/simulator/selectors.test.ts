import { describe, expect, it } from 'vitest';
import { parseFieldSelector, parseLabelSelector, SelectorError } from '../../src/simulator/selectors.ts';
import { pod } from '../factories/kube.ts';
import type { JsonRecord } from '../../src/domain/shape.ts';

const web = pod({
  name: 'web',
  namespace: 'shop',
  labels: { app: 'web', tier: 'front', replicas: '3' },
  nodeName: 'n1',
}) as JsonRecord;
const db = pod({ name: 'db', namespace: 'shop', labels: { app: 'db' } }) as JsonRecord;
const bare = pod({ name: 'bare', namespace: 'ops', labels: {} }) as JsonRecord;
const all = [web, db, bare];

function selectedBy(selector: string): string[] {
  const matches = parseLabelSelector(selector);
  return all.filter((o) => matches?.(o) ?? true).map((o) => (o.metadata as { name: string }).name);
}

function fieldSelectedBy(selector: string): string[] {
  const matches = parseFieldSelector('pods', selector);
  return all.filter((o) => matches?.(o) ?? true).map((o) => (o.metadata as { name: string }).name);
}

describe('label selectors', () => {
  it.each([
    ['app=web', ['web']],
    ['app==web', ['web']],
    ['app!=web', ['db', 'bare']],
    ['app in (web, db)', ['web', 'db']],
    ['app notin (web)', ['db', 'bare']],
    ['tier', ['web']],
    ['!tier', ['db', 'bare']],
    ['app in (web,db),!tier', ['db']],
    ['app=web,tier=front', ['web']],
    ['replicas>2', ['web']],
    ['replicas<2', []],
    ['', ['web', 'db', 'bare']],
  ])('%s selects %j', (selector, names) => {
    expect(selectedBy(selector)).toEqual(names);
  });

  it.each(['app in (web', 'app=we b', '=web', 'app=web,', 'replicas>x'])('refuses %j', (selector) => {
    expect(() => parseLabelSelector(selector)).toThrow(SelectorError);
  });
});

describe('field selectors', () => {
  it.each([
    ['status.phase=Pending', ['db', 'bare']],
    ['status.phase!=Pending', ['web']],
    ['spec.nodeName=n1', ['web']],
    ['spec.nodeName=', ['db', 'bare']],
    ['metadata.namespace==shop,metadata.name!=web', ['db']],
    ['metadata.name=bare', ['bare']],
  ])('%s selects %j', (selector, names) => {
    expect(fieldSelectedBy(selector)).toEqual(names);
  });

  it('refuses fields the resource cannot be selected by, naming the field', () => {
    expect(() => parseFieldSelector('pods', 'spec.priority=1')).toThrow('field label not supported: spec.priority');
    expect(() => parseFieldSelector('nodeclaims', 'status.phase=Pending')).toThrow('field label not supported: status.phase');
    expect(() => parseFieldSelector('pods', 'status.phase')).toThrow(SelectorError);
  });

  it('selects events by the object they regard, under either API name', () => {
    const event = {
      metadata: { name: 'e', namespace: 'shop' },
      regarding: { kind: 'Pod', name: 'web' },
      reason: 'FailedScheduling',
    };
    expect(parseFieldSelector('events', 'involvedObject.name=web,regarding.kind=Pod')?.(event)).toBe(true);
    expect(parseFieldSelector('events', 'reason=FailedScheduling,involvedObject.name=db')?.(event)).toBe(false);
  });
});
