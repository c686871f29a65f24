/** Polling for tests, with nothing else to load (test/support/service.ts, which starts the app, re-exports it). */

/** Polls until `check` passes (or throws its last failure after `timeoutMs`). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5000, intervalMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  }
}
