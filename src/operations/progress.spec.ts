import { ProgressReport } from './progress.js';

function output(isTTY: boolean) {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) };
}

describe('replay progress', () => {
  it('redraws one line on a terminal with events, share, rate and time left', () => {
    let now = 0;
    const out = output(true);
    const report = new ProgressReport(out, { from: 0n, to: 1000n }, () => now);
    now = 2000;
    report.update({ position: 250n, events: 250 });
    now = 2050;
    report.update({ position: 260n, events: 260 }); // too soon to redraw
    now = 4000;
    report.update({ position: 500n, events: 500 });
    expect(out.written).toEqual([
      '\r\x1b[2Kreplaying: 250 events, 25.0%, 125 events/s, about 6 s left',
      '\r\x1b[2Kreplaying: 500 events, 50.0%, 125 events/s, about 4 s left',
    ]);
    report.finish({ position: 1000n, events: 1000 });
    expect(out.written[2]).toBe('\r\x1b[2Kreplayed 1,000 events up to position 1000 in 4.0 s (250 events/s)\n');
  });

  it('writes plain lines, every few seconds, when the output is not a terminal', () => {
    let now = 0;
    const out = output(false);
    const report = new ProgressReport(out, { from: 100n, to: 200n }, () => now);
    for (let i = 1; i <= 10; i += 1) {
      now = i * 1000;
      report.update({ position: 100n + BigInt(i * 10), events: i * 10 });
    }
    report.finish({ position: 200n, events: 100 });
    expect(out.written).toEqual([
      'replaying: 10 events, 10.0%, 10 events/s, about 9 s left\n',
      'replaying: 60 events, 60.0%, 10 events/s, about 4 s left\n',
      'replayed 100 events up to position 200 in 10.0 s (10 events/s)\n',
    ]);
    expect(out.written.every((line) => !line.includes('\r'))).toBe(true);
  });
});
