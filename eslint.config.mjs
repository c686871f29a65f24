// ESLint with typescript-eslint's recommended rules for the service, its tests, the embedded library and the bench scripts; Prettier owns formatting.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-output/**', 'coverage/**', 'bench/runs/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  { files: ['web/**/*.ts', 'test/browser/**/*.ts'], languageOptions: { globals: { ...globals.browser } } },
  {
    rules: {
      // A leading underscore marks a binding kept on purpose (a field left out of a rest, an unused parameter of a fixed signature).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // A binding a callback reads before the line that assigns it (a server's handler and the server) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // Generator functions cannot capture `this`; the stores' live reads name it `store`.
      '@typescript-eslint/no-this-alias': ['error', { allowedNames: ['store'] }],
    },
  },
  // The bench drops references on purpose, so the heap it measures next holds no earlier store.
  { files: ['bench/**/*.mjs'], rules: { 'no-useless-assignment': 'off' } },
  // Tests read JSON answers whose shape the assertions check.
  { files: ['test/**/*.ts', 'src/**/*.spec.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
