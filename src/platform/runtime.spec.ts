import { refuseUnsupportedNode, UnsupportedRuntimeError } from './runtime.js';

describe('the Node versions the service starts on', () => {
  it('starts on Node 20 and 22, and on 24 only with a server event store', () => {
    for (const version of ['20.19.0', '20.20.2', '22.12.0', '22.23.3']) expect(() => refuseUnsupportedNode(version, false)).not.toThrow();
    expect(() => refuseUnsupportedNode('24.21.0', true)).not.toThrow();
  });

  it('refuses Node 24 and later with the embedded store, saying what to run instead', () => {
    for (const version of ['24.0.0', '24.21.0', '25.1.0']) {
      expect(() => refuseUnsupportedNode(version, false)).toThrow(UnsupportedRuntimeError);
      expect(() => refuseUnsupportedNode(version, false)).toThrow(
        `Node ${version} is not supported with the embedded store (better-sqlite3 12 aborts on Node 24); run Node 22 or 20`,
      );
    }
  });
});
