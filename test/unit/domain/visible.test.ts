import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isVisible, visibleLine, visibleText } from '../../../src/domain/visible.ts';

describe('visibleText', () => {
  it('writes out escape sequences, bidi overrides and separators', () => {
    expect(visibleText('\u001b[31mred\u001b[0m')).toBe(String.raw`\x1b[31mred\x1b[0m`);
    expect(visibleText('invoice\u202Eexe.txt')).toBe(String.raw`invoice\u202eexe.txt`);
    expect(visibleText('a\u2066b\u2069c\u200fd\u061ce')).toBe(String.raw`a\u2066b\u2069c\u200fd\u061ce`);
    expect(visibleText('bell\u0007 del\u007f c1\u009b tab\t cr\r')).toBe(String.raw`bell\x07 del\x7f c1\x9b tab\x09 cr\x0d`);
    expect(visibleText('para\u2029graph')).toBe(String.raw`para\u2029graph`);
  });

  it('keeps line feeds and ordinary text, accents and emoji included', () => {
    expect(visibleText('kubectl get nodes\n# café ✓ 🚀')).toBe('kubectl get nodes\n# café ✓ 🚀');
  });

  it('leaves nothing a terminal would act on, whatever the input', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(isVisible(visibleText(s).replaceAll('\n', ''))).toBe(true);
        expect(isVisible(visibleLine(s)) && !visibleLine(s).includes('\n')).toBe(true);
      }),
    );
  });
});

describe('visibleLine', () => {
  it('turns line breaks into spaces so a value cannot forge a line', () => {
    expect(visibleLine('ok\nnote: all good\r\nreally\u2028yes')).toBe('ok note: all good really yes');
  });
});
