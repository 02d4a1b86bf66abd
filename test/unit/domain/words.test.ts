import { describe, expect, it } from 'vitest';
import { capitalised, counted } from '../../../src/domain/words.ts';

describe('counted', () => {
  it.each([
    [0, 'gap', '0 gaps'],
    [1, 'gap', '1 gap'],
    [2, 'Karpenter instance', '2 Karpenter instances'],
  ])('%i %s is %s', (n, noun, text) => {
    expect(counted(n, noun)).toBe(text);
  });
});

describe('capitalised', () => {
  it('raises the first letter only, leaving the rest as written', () => {
    expect(capitalised('restart applied to EC2')).toBe('Restart applied to EC2');
    expect(capitalised('')).toBe('');
  });
});
