/**
 * The import rules of src/ (docs/architecture.md, "Features and the direction of imports").
 * Features are listed from the bottom up: a feature imports only the public face (index.ts) of a
 * feature below it, never one above, never another feature's internals; platform/ imports no
 * feature; domain/ folders import neither Nest nor their feature's http/ or read-models/.
 */
const FEATURES = [
  'merchants',
  'email-opt-outs',
  'integrations',
  'widgets',
  'customers',
  'coupons',
  'referral-links',
  'email',
  'shares',
  'email-captures',
  'sales',
  'privacy',
  'webhooks',
  'audit',
  'browser',
  'operations',
  'sandbox',
];

const above = (index) => FEATURES.slice(index + 1);

module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-feature',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'only-public-faces',
      comment: 'A feature imports another feature through its index.ts only.',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { path: '^src/([^/]+)/.+', pathNot: ['^src/$1/', '^src/platform/', '^src/[^/]+/index\\.ts$'] },
    },
    ...FEATURES.map((feature, index) => ({
      name: `imports-flow-down-from-${feature}`,
      comment: `${feature} imports only features listed below it in .dependency-cruiser.cjs.`,
      severity: 'error',
      from: { path: `^src/${feature}/` },
      to: { path: above(index).length ? `^src/(${above(index).join('|')})/` : '^$' },
    })),
    {
      name: 'domain-is-pure',
      comment: 'Deciders and domain types import neither Nest nor the HTTP or read-model layers.',
      severity: 'error',
      from: { path: '^src/[^/]+/domain/' },
      to: { path: ['^node_modules/@nestjs/', '^src/[^/]+/(http|read-models)/'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'every-folder-is-a-feature',
      comment: 'A new folder under src/ is added to FEATURES, where its place says what it may import.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/[^/]+/', pathNot: [`^src/(platform|${FEATURES.join('|')})/`] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['\\.spec\\.ts$'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js'] },
  },
};
