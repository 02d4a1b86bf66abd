import { defineConfig } from 'vitest/config';

// The product targets Node 22 (Lambda nodejs22.x); the machine default may be older. Refuse to
// run rather than silently test on the wrong runtime.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  throw new Error(`tests need Node >= 22.18, found ${process.version}: run them with "npm test" (uses the project's node@22)`);
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 20_000,
  },
});
