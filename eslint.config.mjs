// ESLint with typescript-eslint's recommended rules for the service, its tests, the embedded library and the bench scripts; Prettier owns formatting.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-output/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { languageOptions: { globals: { ...globals.node } } },
  { files: ['web/**/*.ts', 'test/browser/**/*.ts'], languageOptions: { globals: { ...globals.browser } } },
);
