import { ManualClock } from '../../platform/clock.js';
import { loadConfig } from '../../platform/config.js';
import { ClickAdmission, MAX_REMEMBERED, REPEAT_WINDOW_MS } from './click-admission.js';

describe('ClickAdmission', () => {
  const config = { ...loadConfig({}), clicksPerMinutePerAddress: 1_000_000_000, clicksPerMinutePerCode: 1_000_000_000 };

  it('remembers at most MAX_REMEMBERED visitors, however many distinct ones click', () => {
    const admission = new ClickAdmission(config, new ManualClock());
    let recorded = 0;
    for (let i = 0; i < MAX_REMEMBERED + 5_000; i += 1) if (admission.admit('CODE', `10.0.${i >> 8}.${i & 255}`, `agent-${i}`) === 'record') recorded += 1;
    expect([recorded, admission.remembered]).toEqual([MAX_REMEMBERED + 5_000, MAX_REMEMBERED]);
  });

  it('forgets visitors once their window has passed', () => {
    const clock = new ManualClock();
    const admission = new ClickAdmission(config, clock);
    for (let i = 0; i < 1000; i += 1) admission.admit('CODE', '10.0.0.1', `agent-${i}`);
    expect(admission.admit('CODE', '10.0.0.1', 'agent-0')).toBe('repeat');
    clock.advance(REPEAT_WINDOW_MS);
    expect(admission.admit('CODE', '10.0.0.1', 'agent-0')).toBe('record');
    expect(admission.remembered).toBe(1);
  });

  it('throttles per address and per code, without counting what it refuses', () => {
    const clock = new ManualClock();
    const admission = new ClickAdmission({ ...config, clicksPerMinutePerAddress: 2, clicksPerMinutePerCode: 3 }, clock);
    expect(['a', 'b', 'c'].map((ua) => admission.admit('ONE', '10.0.0.1', ua))).toEqual(['record', 'record', 'throttled']);
    expect(admission.admit('ONE', '10.0.0.2', 'a')).toBe('record');
    expect(admission.admit('ONE', '10.0.0.3', 'a')).toBe('throttled');
    expect(admission.admit('TWO', '10.0.0.3', 'a')).toBe('record');
    clock.advance(60_000);
    expect(admission.admit('ONE', '10.0.0.1', 'c')).toBe('record');
  });
});
