import { describe, expect, it } from 'vitest';
import { markdownCode, markdownFence, markdownParagraph, markdownText } from '../../../src/domain/markdown.ts';

describe('markdownText', () => {
  it('escapes what would become a link, HTML, an entity, emphasis or a table column', () => {
    expect(markdownText('[md](https://evil.example)')).toBe('\\[md\\]\\(https://evil.example)');
    expect(markdownText('<https://evil|click> <!channel>')).toBe('\\<https://evil\\|click\\> \\<!channel\\>');
    expect(markdownText('&#8238;txt')).toBe('\\&#8238;txt');
    expect(markdownText('*bold* _it_ ~~gone~~ `code` \\')).toBe('\\*bold\\* \\_it\\_ \\~\\~gone\\~\\~ \\`code\\` \\\\');
  });

  it('keeps a value on one line and codes readable', () => {
    expect(markdownText('a\nb\r\nc')).toBe('a b c');
    expect(markdownText('TERMINATE_INSTANCE')).toBe('TERMINATE_INSTANCE');
  });
});

describe('markdownParagraph', () => {
  it('does not let a value start a heading, a quote or a list', () => {
    expect(markdownParagraph('# title')).toBe('\\# title');
    expect(markdownParagraph('> quote')).toBe('\\> quote');
    expect(markdownParagraph('1. item')).toBe('1\\. item');
  });
});

describe('markdownCode', () => {
  it('outgrows backtick runs inside so the value stays one literal span', () => {
    expect(markdownCode('demo')).toBe('`demo`');
    expect(markdownCode('a``b')).toBe('```a``b```');
    expect(markdownCode('`x')).toBe('`` `x ``');
  });
});

describe('markdownFence', () => {
  it('uses at least three backticks, more than any run in the body', () => {
    expect(markdownFence('sh', 'echo "```"')).toEqual(['````sh', 'echo "```"', '````']);
    expect(markdownFence('', 'ls')).toEqual(['```', 'ls', '```']);
  });
});
