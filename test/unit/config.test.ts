import { describe, expect, it } from 'vitest';
import { readTerminalEnvironment } from '../../src/config.ts';

describe('readTerminalEnvironment', () => {
  it.each([
    [{}, { noColor: false, forceColor: false }],
    [{ NO_COLOR: '1' }, { noColor: true, forceColor: false }],
    [{ NO_COLOR: '' }, { noColor: false, forceColor: false }],
    [{ FORCE_COLOR: '1' }, { noColor: false, forceColor: true }],
    [{ FORCE_COLOR: '0' }, { noColor: true, forceColor: false }],
    [{ FORCE_COLOR: 'false' }, { noColor: true, forceColor: false }],
  ])('%j → %j', (env, expected) => {
    expect(readTerminalEnvironment(env)).toEqual(expected);
  });
});
