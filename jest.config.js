// Jest runs in native ESM mode (Nest 12 ships ESM only). ts-jest only transpiles
// (isolatedModules): `npm test` type-checks the whole project with tsc first.
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.e2e-spec.ts', '**/*.contract-spec.ts'],
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // @fastify/static (CJS) requires content-disposition 3, which is ESM-only; jest on Node 20
    // cannot require ESM, so tests get the CJS 1.x build of the same library.
    '^content-disposition$': 'content-disposition-cjs',
    // Likewise Fastify's inject (light-my-request, used to serve the sandbox) requires cookie 2, ESM-only.
    '^cookie$': 'cookie-cjs',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', isolatedModules: true }],
  },
};
