import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { PeriodicTask } from './periodic-task.js';

describe('PeriodicTask', () => {
  it('does not wait for detached work in its pass, and stop() waits for it', async () => {
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    let passes = 0;
    let slowDone = false;
    const task = new PeriodicTask('spec', async () => {
      passes += 1;
      if (passes === 1) task.detach(slow.then(() => void (slowDone = true)));
    });
    await task.tick();
    // The slow work of the first pass is still running, and a second pass runs all the same.
    await task.tick();
    expect(passes).toBe(2);
    let stopped = false;
    const stopping = task.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(slowDone).toBe(true);
  });

  it('logs a detached failure instead of letting it escape', async () => {
    // Held and asserted, so a passing run prints no ERROR line.
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      const task = new PeriodicTask('spec', async () => undefined);
      task.detach(Promise.reject(new Error('endpoint on fire')));
      await expect(task.stop()).resolves.toBeUndefined();
      expect(logged).toHaveBeenCalledWith(expect.stringContaining('endpoint on fire'));
    } finally {
      logged.mockRestore();
    }
  });
});
