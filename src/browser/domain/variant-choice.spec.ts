import { chooseVariant, visitorPoint } from './variant-choice.js';

describe('variant choice', () => {
  const group = [
    { id: 2, distribution: 40 },
    { id: 1, distribution: 60 },
  ];

  it('lays the shares out in id order: points below 60 get the first variant, the rest the second', () => {
    expect([0, 59.99, 60, 99.99].map((p) => chooseVariant(group, p)?.id)).toEqual([1, 1, 2, 2]);
  });

  it('gives the same visitor the same point in a group, and other points in other groups', () => {
    expect(visitorPoint('spring', 'visitor-1')).toBe(visitorPoint('spring', 'visitor-1'));
    expect(visitorPoint('spring', 'visitor-1')).not.toBe(visitorPoint('autumn', 'visitor-1'));
  });

  it('splits 10,000 visitors by the distributions', () => {
    const counts = new Map<number, number>();
    for (let i = 0; i < 10_000; i += 1) {
      const id = chooseVariant(group, visitorPoint('spring', `visitor-${i}`))!.id;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect(counts.get(1)).toBeGreaterThan(5700);
    expect(counts.get(1)).toBeLessThan(6300);
    expect(counts.get(1)! + counts.get(2)!).toBe(10_000);
  });

  it('scales distributions that do not add up to 100, shares equally when they add up to 0, and never serves a 0 % variant among others', () => {
    expect(
      [0, 49, 51, 99].map(
        (p) =>
          chooseVariant(
            [
              { id: 1, distribution: 30 },
              { id: 2, distribution: 30 },
            ],
            p,
          )?.id,
      ),
    ).toEqual([1, 1, 2, 2]);
    expect(
      [0, 49, 51, 99].map(
        (p) =>
          chooseVariant(
            [
              { id: 1, distribution: 0 },
              { id: 2, distribution: 0 },
            ],
            p,
          )?.id,
      ),
    ).toEqual([1, 1, 2, 2]);
    expect(
      [0, 50, 99.999].map(
        (p) =>
          chooseVariant(
            [
              { id: 1, distribution: 100 },
              { id: 2, distribution: 0 },
            ],
            p,
          )?.id,
      ),
    ).toEqual([1, 1, 1]);
    expect(chooseVariant([], 10)).toBeUndefined();
  });
});
