import { describe, expect, it } from 'vitest';
import type { SpotPrice } from '../../../src/domain/aws.ts';
import { costOf } from '../../../src/domain/cost.ts';
import { priceBookOf } from '../../../src/domain/price-book.ts';
import { emptySnapshot, type ClusterSnapshot } from '../../../src/domain/snapshot.ts';

const TABLE = "us-east-1 list price from Karpenter's table of 2026-07-20";

function snapshotWith(spotPrices: SpotPrice[], arn?: string): ClusterSnapshot {
  return { ...emptySnapshot('prod'), spotPrices, ...(arn ? { cluster: { name: 'prod', arn } } : {}) };
}

function spot(zone: string, usd: number, timestamp: string, productDescription = 'Linux/UNIX'): SpotPrice {
  return { instanceType: 'm5.large', availabilityZone: zone, usd, timestamp, productDescription };
}

describe('priceBookOf', () => {
  it('prices on-demand capacity at the bundled us-east-1 list price, and says where it came from', () => {
    const prices = priceBookOf(snapshotWith([]));

    expect(prices.hourly({ instanceType: 'm5.large', capacityType: 'on-demand', zone: 'us-east-1a' })).toEqual({
      usd: 0.096,
      source: `on-demand, ${TABLE}`,
    });
    expect(costOf(prices, [{ instanceType: 'm5.large', capacityType: 'on-demand', zone: 'us-east-1a' }])).toEqual({
      perDayUsd: 2.3,
      basis: `1 × m5.large on-demand at $0.0960/h (on-demand, ${TABLE}); × 24 h`,
    });
  });

  it("says a cluster outside us-east-1 is priced at us-east-1's list price", () => {
    const byZone = priceBookOf(snapshotWith([])).hourly({
      instanceType: 'c5.large',
      capacityType: undefined,
      zone: 'eu-west-1b',
    });
    const byArn = priceBookOf(snapshotWith([], 'arn:aws:eks:ap-south-1:111122223333:cluster/prod')).hourly({
      instanceType: 'c5.large',
      capacityType: 'on-demand',
      zone: undefined,
    });

    expect(byZone).toEqual({ usd: 0.085, source: `on-demand, ${TABLE}; the cluster is in eu-west-1, whose prices differ` });
    expect(byArn?.source).toContain('the cluster is in ap-south-1');
  });

  it("prices Spot capacity at the newest Linux Spot price of its zone, not an older one, another OS's or the list price", () => {
    const prices = priceBookOf(
      snapshotWith([
        spot('us-east-1a', 0.05, '2026-11-28T01:00:00.000Z'),
        spot('us-east-1a', 0.034, '2026-11-29T03:00:00.000Z'),
        spot('us-east-1a', 0.01, '2026-11-29T04:00:00.000Z', 'Windows'),
        spot('us-east-1b', 0.02, '2026-11-29T03:00:00.000Z'),
      ]),
    );

    const price = prices.hourly({ instanceType: 'm5.large', capacityType: 'spot', zone: 'us-east-1a' });

    expect(price).toEqual({ usd: 0.034, source: 'spot, DescribeSpotPriceHistory us-east-1a as of 2026-11-29T03:00:00.000Z' });
  });

  it('prices Spot without a price for its zone at the lowest zone, and says so', () => {
    const prices = priceBookOf(
      snapshotWith([spot('us-east-1b', 0.04, '2026-11-29T03:00:00Z'), spot('us-east-1c', 0.031, '2026-11-29T02:00:00Z')]),
    );

    expect(prices.hourly({ instanceType: 'm5.large', capacityType: 'spot', zone: 'us-east-1f' })).toEqual({
      usd: 0.031,
      source: 'spot, DescribeSpotPriceHistory lowest zone us-east-1c as of 2026-11-29T02:00:00Z (none for us-east-1f)',
    });
    expect(prices.hourly({ instanceType: 'm5.large', capacityType: 'spot', zone: undefined })?.source).toContain(
      '(zone unknown)',
    );
  });

  it('prices Spot with no Spot price at the list price as an upper bound, and on-demand capacity never at a Spot price', () => {
    const prices = priceBookOf(snapshotWith([spot('us-east-1a', 0.034, '2026-11-29T03:00:00Z')]));

    expect(prices.hourly({ instanceType: 'c5.large', capacityType: 'spot', zone: 'us-east-1a' })).toEqual({
      usd: 0.085,
      source: `no Spot price for c5.large: on-demand, ${TABLE}, an upper bound`,
    });
    expect(prices.hourly({ instanceType: 'm5.large', capacityType: 'on-demand', zone: 'us-east-1a' })?.usd).toBe(0.096);
  });

  it('leaves reserved capacity and capacity blocks unpriced, saying why, and leaves unknown types unpriced', () => {
    const prices = priceBookOf(snapshotWith([]));

    const reserved = costOf(prices, [
      { instanceType: 'p5.48xlarge', capacityType: 'reserved', zone: 'us-east-1a' },
      { instanceType: 'p5.48xlarge', capacityType: 'capacity-block', zone: 'us-east-1a' },
    ]);
    expect(reserved?.perDayUsd).toBe(0);
    expect(reserved?.basis).toContain(
      '1 × p5.48xlarge reserved not priced (reserved capacity bills whether used or not: removing the node saves nothing)',
    );
    expect(reserved?.basis).toContain('1 × p5.48xlarge capacity-block not priced');
    expect(prices.hourly({ instanceType: 'x99.huge', capacityType: 'on-demand', zone: 'us-east-1a' })).toBeUndefined();
    expect(prices.hourly({ instanceType: undefined, capacityType: 'on-demand', zone: 'us-east-1a' })).toBeUndefined();
    expect(
      costOf(prices, [
        { instanceType: 'm5.large', capacityType: 'on-demand', zone: 'us-east-1a' },
        { instanceType: 'x99.huge', capacityType: 'on-demand', zone: 'us-east-1a' },
      ])?.basis,
    ).toContain('1 × x99.huge not priced (no price known for the type)');
  });

  it("never takes a Spot price of a zone of another region or of a zone not shaped like EC2's into the basis", () => {
    const forged = `us-east-1z\u001b]8;;https://evil.example\u0007${'x'.repeat(3000)}`;
    const prices = priceBookOf(
      snapshotWith([spot(forged, 0.001, '2026-11-29T03:00:00.000Z'), spot('eu-west-1a', 0.002, '2026-11-29T03:00:00.000Z')]),
    );

    const price = prices.hourly({ instanceType: 'm5.large', capacityType: 'spot', zone: 'us-east-1f' });

    expect(price?.usd).toBe(0.096);
    expect(price?.source).toContain('no Spot price for m5.large: on-demand');
    expect(price?.source).not.toContain('eu-west-1a');
    expect(price?.source.length).toBeLessThan(200);
  });
});
