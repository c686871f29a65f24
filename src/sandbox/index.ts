/** What other features may use of sandbox (docs/architecture.md): nothing else of it is imported from outside. */
export { DemoShopModule } from './demo/demo-shop.module.js';
export { SANDBOX_PREFIX, SandboxHost } from './sandbox-host.js';
export { SandboxModule } from './sandbox.module.js';
