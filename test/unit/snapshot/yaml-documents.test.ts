import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { ShapeError } from '../../../src/domain/shape.ts';
import { dropUnusedFieldsThroughout } from '../../../src/domain/unused-fields.ts';
import { parseYamlDocuments } from '../../../src/snapshot/yaml-documents.ts';

/** The YAML library's reading of the whole text: what cutting the lists must give too. */
function wholeReading(text: string): unknown[] {
  return parseAllDocuments(text)
    .map((doc) => {
      if (doc.errors.length > 0) throw doc.errors[0];
      return doc.toJS({ maxAliasCount: 0 }) as unknown;
    })
    .filter((value) => value !== null && value !== undefined)
    .map(dropUnusedFieldsThroughout);
}

/** Strings that make the YAML writer quote, fold, and use block scalars. */
const text = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '- not an item',
    'items:',
    '# not a comment',
    'a: b',
    '---',
    '...',
    'line one\nline two\n',
    '  indented\n- dash\n',
    'true',
    '0x1F',
    '',
  ),
  fc.string({ minLength: 80, maxLength: 200 }),
);
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), tie('list'), tie('map')),
  list: fc.array(tie('node'), { maxLength: 3 }),
  map: fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('items', 'metadata', 'managedFields')), tie('node'), {
    maxKeys: 4,
  }),
})).node;
const kubeObject = fc.record({
  apiVersion: fc.constant('v1'),
  kind: fc.constant('Pod'),
  metadata: fc.record({ name: text }),
  spec: value,
});

describe('parseYamlDocuments', () => {
  it('reads `items:` lists entry by entry into what the YAML library reads whole', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record(
            { items: fc.array(fc.oneof(kubeObject, value), { maxLength: 4 }), kind: fc.constant('List'), extra: value },
            { requiredKeys: ['items'] },
          ),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom(0, 40, 80),
        (documents, indentSeq, crlf, lineWidth) => {
          // Prepare
          let yaml = documents.map((d) => stringify(d, { indentSeq, lineWidth, aliasDuplicateObjects: false })).join('---\n');
          if (crlf) yaml = yaml.replaceAll('\n', '\r\n');

          // Act
          const parsed = parseYamlDocuments(yaml, { wholeParseLimit: 0 });

          // Assess
          expect(parsed).toEqual(wholeReading(yaml));
        },
      ),
      { numRuns: 400 },
    );
  });

  it('drops managedFields and the last-applied copy from every entry', () => {
    // Prepare
    const yaml = `apiVersion: v1
items:
- apiVersion: v1
  kind: Pod
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"v1","kind":"Pod"}
      keep: "me"
    managedFields:
    - manager: kubectl
      fieldsV1:
        f:metadata:
          f:annotations: {}
    name: inflate-1
kind: List
`;

    // Act
    const parsed = parseYamlDocuments(yaml);

    // Assess
    expect(parsed).toEqual([
      {
        apiVersion: 'v1',
        items: [{ apiVersion: 'v1', kind: 'Pod', metadata: { annotations: { keep: 'me' }, name: 'inflate-1' } }],
        kind: 'List',
      },
    ]);
  });

  it.each([
    [
      'inside the third entry of the second document',
      [
        'apiVersion: v1',
        'items: []',
        '---',
        'items:',
        '- name: a',
        '- name: b',
        '  labels: {app: b}',
        '- name: c',
        '   bad: indentation',
        'kind: List',
      ],
      9,
    ],
    ['after a list', ['items:', '- name: a', '- name: b', 'kind: List', 'metadata: {a: 1'], 6],
  ])('names the line of the file for an error %s, as reading it whole does', (_where, lines, line) => {
    // Prepare
    const yaml = `${lines.join('\n')}\n`;
    const messageOf = (wholeParseLimit: number) => {
      try {
        parseYamlDocuments(yaml, { wholeParseLimit });
        return '';
      } catch (e) {
        return e instanceof ShapeError ? e.message : String(e);
      }
    };

    // Act
    const cut = messageOf(0);
    const whole = messageOf(Number.MAX_SAFE_INTEGER);

    // Assess
    expect(cut).toMatch(new RegExp(`^not JSON or YAML \\(line ${line}: `));
    expect(cut).toBe(whole);
  });
});
