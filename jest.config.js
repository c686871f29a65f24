// Jest runs in native ESM mode (Nest 12 ships ESM only). ts-jest only transpiles (tsconfig's
// isolatedModules): `npm test` type-checks the whole project with tsc first.
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.contract-spec.ts', '**/*.browser-spec.ts'],
  // The closing summary names the suites skipped for want of a server, and why.
  reporters: ['default', '<rootDir>/test/support/skipped-reporter.mjs'],
  extensionsToTreatAsEsm: ['.ts'],
  // End-to-end files start real applications and processes: 5 s is too short on a busy 2-core machine.
  testTimeout: 30_000,
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // @fastify/static (CJS) requires content-disposition 3, which is ESM-only; jest on Node 20
    // cannot require ESM, so tests get the CJS 1.x build of the same library.
    '^content-disposition$': 'content-disposition-cjs',
    // Likewise Fastify's inject (light-my-request, used to serve the sandbox) requires cookie 2, ESM-only.
    '^cookie$': 'cookie-cjs',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
};
