import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * The dependency rule (docs/architecture.md): functions, cli → service → usecases → detectors,
 * remediations, notify, cleanup, interruptions, collect → domain + ports ← adapters. Only the
 * composition roots (src/service/compose, src/cli) pick adapters; src/snapshot is a lower layer
 * (the capture-file format; the JSON toolkit is in src/domain); src/simulator is test/demo infrastructure only cli uses;
 * src/config.ts is read by the composition roots, cli and scripts; src/support is the lowest
 * cross-cutting layer. Inside src/detectors, a finding's folder imports the shared modules
 * (DETECTOR_SHARED) and detector.ts, never another finding's folder. Each block below names what
 * one folder must NOT import (type-only imports included); import cycles are caught by
 * test/architecture/cycles.test.ts.
 */
const SDKS = [
  { regex: '^@aws-sdk/', message: 'No AWS SDK here: an adapter behind a port does the call.' },
  { regex: '^@smithy/', message: 'No AWS SDK here: an adapter behind a port does the call.' },
  { regex: '^@kubernetes/client-node', message: 'No Kubernetes client here: an adapter behind a port does the call.' },
  { regex: '^@middy/', message: 'Middleware belongs in src/service.' },
  { regex: '^@aws-lambda-powertools/', message: 'Lambda tooling belongs in src/service.' },
  { regex: '^(node:)?(https?|fs)(/|$)', message: 'No network or file access here: pass data in, or use a port.' },
];

/** A restriction on relative imports reaching any of these src folders (or src/<name>.ts). */
function layersNot(names, message) {
  return { regex: `^(\\.\\./)+(${names.join('|')})(/|\\.ts$)`, message };
}

/** `files` must not import the src folders in `forbidden`; `extra` more patterns (SDKs). */
function layer(files, forbidden, why, extra = []) {
  return {
    files,
    rules: { 'no-restricted-imports': ['error', { patterns: [layersNot(forbidden, why), ...extra] }] },
  };
}

const ALL = [
  'adapters',
  'cleanup',
  'cli',
  'collect',
  'config',
  'detectors',
  'domain',
  'interruptions',
  'notify',
  'ports',
  'remediations',
  'service',
  'simulator',
  'snapshot',
  'support',
  'usecases',
];
const except = (...allowed) => ALL.filter((name) => !allowed.includes(name));
/** Above the middle layer: what none of detectors … collect may import. */
const UPWARD = ['adapters', 'cli', 'config', 'service', 'simulator', 'usecases'];
/** Beside detectors in the middle layer: what a detector must not import. */
const DETECTORS_NOT = [...UPWARD, 'cleanup', 'collect', 'interruptions', 'notify', 'remediations'];
// Detectors read the ClusterSnapshot (src/domain), whoever built it: a Kubernetes or AWS string the
// capture reader also matches lives in src/domain (conversion-webhook.ts), not in src/snapshot.
DETECTORS_NOT.push('snapshot');
const DETECTORS_WHY = 'Detectors are pure: src/domain, src/ports and src/support only.';
/**
 * The shared modules of src/detectors (docs/architecture.md). Every other folder there is one
 * finding code's: it may import these and ../detector.ts, never another finding's folder.
 */
const DETECTOR_SHARED = ['aws-iam', 'cloud-errors', 'instance-types', 'karpenter', 'scheduling'];
const OTHER_DETECTOR_FOLDER = {
  regex: `^\\.\\./(?!(${DETECTOR_SHARED.join('|')})/)[^./][^/]*/`,
  message: `A detector folder imports the shared modules (src/detectors/{${DETECTOR_SHARED.join(',')}}) and ../detector.ts, not another finding's folder: move a helper two detectors use into a shared module.`,
};

export default tseslint.config(
  { ignores: ['node_modules', 'dist', '.serverless', 'coverage', 'examples'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Serverless Framework variable files (`${file(infra/x.cjs):key}`) are CommonJS, loaded by osls.
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Only src/config.ts reads the environment.',
        },
      ],
    },
  },
  // The dependency rule, one block per folder (a later block for the same file would replace it).
  layer(['src/domain/**'], except(), 'src/domain imports only src/domain.', SDKS),
  layer(['src/support/**'], except('domain'), 'src/support is the lowest layer: it imports only src/domain.'),
  layer(['src/ports/**'], except('domain'), 'src/ports declares interfaces over src/domain types only.'),
  layer(['src/config.ts'], except('domain'), 'src/config.ts reads the environment into src/domain types.'),
  layer(
    ['src/snapshot/**'],
    except('domain', 'support', 'snapshot'),
    'src/snapshot (the capture-file format) imports only src/domain and src/support.',
  ),
  layer(['src/detectors/**'], DETECTORS_NOT, DETECTORS_WHY, SDKS),
  layer(['src/detectors/*/**/*.ts'], DETECTORS_NOT, DETECTORS_WHY, [...SDKS, OTHER_DETECTOR_FOLDER]),
  layer(
    ['src/remediations/**', 'src/collect/**'],
    [...UPWARD, 'detectors'],
    'Imports go down and not sideways: not detectors (shared knowledge lives in src/domain), usecases, service, cli, adapters, config or simulator.',
  ),
  layer(
    ['src/interruptions/**'],
    [...UPWARD, 'detectors', 'notify'],
    'Imports go down: not notify (it imports interruptions), detectors, usecases, service, cli, adapters, config or simulator.',
  ),
  layer(['src/notify/**'], UPWARD, 'Imports go down: not usecases, service, cli, adapters, config or simulator.', [
    {
      // Metrics and alerts read findings (Finding.counts) and the snapshot index, never how a detector groups.
      regex: '^(\\.\\./)+detectors/(?!registry\\.ts$)',
      message: 'notify reads findings: from src/detectors only the public src/detectors/registry.ts.',
    },
  ]),
  layer(
    ['src/cleanup/**'],
    [...UPWARD, 'collect', 'detectors', 'interruptions', 'notify', 'remediations'],
    'Imports go down and not sideways: not the floors beside it (collect, detectors, interruptions, notify, remediations: what cleanup shares with them lives in src/domain or src/ports), usecases, service, cli, adapters, config or simulator.',
  ),
  layer(
    ['src/usecases/**'],
    ['adapters', 'cli', 'config', 'service', 'simulator'],
    'A use case gets adapters and settings passed in (src/service/compose, src/cli pick them).',
  ),
  layer(
    ['src/service/handlers/**', 'src/service/*.ts'],
    ['adapters', 'cli', 'config', 'simulator'],
    'Handlers get adapters and config from src/service/compose.',
  ),
  layer(['src/service/compose/**'], ['cli', 'simulator'], 'The service composes real adapters, never the simulator or cli.'),
  layer(
    ['src/adapters/**'],
    [
      ...UPWARD.filter((name) => name !== 'adapters'),
      'cleanup',
      'collect',
      'detectors',
      'interruptions',
      'notify',
      'remediations',
    ],
    'Adapters implement src/ports over src/domain (and src/snapshot, src/support); values come in from the composition root.',
  ),
  layer(
    ['src/simulator/**'],
    except('adapters', 'domain', 'ports', 'simulator', 'snapshot', 'support'),
    'The simulator imports only adapters, ports, domain, snapshot and support.',
  ),
  layer(['src/cli/**'], ['service'], 'The CLI does not import the Lambda service.'),
  // After src/cli/** (a later block replaces an earlier one for the same file), so it restates `service`.
  layer(
    ['src/cli/render/**'],
    ['adapters', 'cleanup', 'collect', 'interruptions', 'remediations', 'service', 'simulator', 'usecases'],
    'A renderer draws results the domain types hold: what it shares with the code that made them lives in src/domain.',
  ),
  {
    files: ['functions/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^\\.\\./src/(?!service/|config\\.ts$)',
              message: 'A Lambda function imports only src/service and src/config.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/config.ts', 'test/**', 'bench/**', 'bin/**', 'vitest.config.ts'],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
