/**
 * Fills a service event store (SQLite, the schema of src/platform/event-store/sqlite-event-store.ts)
 * up to a total number of events with synthetic purchases, written directly with better-sqlite3.
 *
 * The store must already hold a merchant, a rewarded widget and advocates with personal links,
 * created through the service's API (the bench does that, then snapshots the file). Each
 * synthetic purchase is exactly what POST /v2/purchases with a referral code of a
 * personal link writes (checked against a real store with --reference):
 *
 *   purchase-<merchantId>-<base64url(orderId)>         rev 0  PurchaseRecorded
 *                                                      rev 1  ConversionAttributed
 *   advocate-rewards-<merchantId>-<widgetId>-c<customerId>  rev n  AdvocateRewardCounted
 *   reward-of-conversion-<conversionId>                rev 0  RewardApproved
 *
 * metadata {"merchantId": …}; ids are time-ordered like the service's (ms since 2026-01-01 × 1024 + n).
 *
 * The webhook reactor of a service that wrote them saves its position after every 100 source
 * events (CHECKPOINT_EVERY_EVENTS in src/webhooks/delivery/webhook-reactor.ts; a purchase has two,
 * its ConversionAttributed and RewardApproved), so one event in about 200 is its
 *
 *   webhook-reactor-checkpoint                         rev n  WebhookReactorCheckpointed
 *
 * (metadata {}), with the position of the event before it: a service started on the store rescans
 * what a restarted one would, not the whole log. The events after the last purchase that fits are
 * unattributed purchases (PurchaseRecorded without a code), so the total is exact.
 *
 * With --dist (the service's build), the personal values of each event are sealed as the service seals
 * them (src/platform/personal-data: the keys in <db>-keys beside the log), so that a start-up on the
 * store opens them as it would on a real one.
 *
 * Usage: node bench/gen-events.mjs --db <events.sqlite> --total 1000000 [--reference <events.sqlite>] [--dist <dist>]
 * Prints (and sends over IPC when started with one) {existing, added, purchases, total, ms}.
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const EPOCH = Date.UTC(2026, 0, 1);
const BATCH = 20_000;
/** The reactor's rhythm: a checkpoint after this many source events (see the top of this file). */
const REACTOR_CHECKPOINT_EVERY = 100;
const REACTOR_CHECKPOINT_STREAM = 'webhook-reactor-checkpoint';
const SOURCE_TYPES = new Set(['ConversionAttributed', 'RewardApproved']);

function arg(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}

const b64url = (text) => Buffer.from(text, 'utf8').toString('base64url');
const idAt = (ms, n) => (ms - EPOCH) * 1024 + n;

/** The same stream names the service uses (src/sales/domain/purchase.ts, src/sales/domain/reward.ts). */
const purchaseStream = (merchantId, orderId) => `purchase-${merchantId}-${b64url(orderId)}`;
const rewardStream = (conversionId) => `reward-of-conversion-${conversionId}`;
const ledgerStream = (merchantId, widgetId, customerId) => `advocate-rewards-${merchantId}-${widgetId}-c${customerId}`;

/** A deterministic pseudo-random sequence (mulberry32), so two runs build the same store. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The events of one attributed purchase, in the order and shapes the service appends them. */
export function purchaseEvents({ merchantId, widgetId, link, orderId, ms }) {
  const purchaseId = idAt(ms, 0);
  const conversionId = idAt(ms, 1);
  const at = new Date(ms).toISOString();
  const friendEmail = `friend-${orderId}@example.net`;
  const purchase = {
    purchaseId,
    merchantId,
    orderId,
    paymentAmount: 49.5,
    newCustomer: 'yes',
    couponCode: null,
    referralCode: link.code,
    emailAddress: friendEmail,
    ipAddress: '198.51.100.7',
    referrer: null,
    customerId: null,
    widgetId: null,
    products: [],
    createdAt: at,
  };
  const conversion = {
    conversionId,
    widgetId,
    referralCode: link.code,
    couponCode: null,
    channel: 'personal_url',
    source: { type: 'referral_link', code: link.code },
    advocateCustomerId: link.advocateCustomerId,
    advocateEmailAddress: link.advocateEmail,
    purchaseId,
    merchantId,
    friendCustomerId: null,
    friendEmailAddress: friendEmail,
    createdAt: at,
  };
  const counted = { merchantId, widgetId, rewardId: conversionId, amount: 10, at, overCap: false };
  const approved = {
    rewardId: conversionId,
    merchantId,
    conversionId,
    purchaseId,
    widgetId,
    advocateCustomerId: link.advocateCustomerId,
    advocateEmailAddress: link.advocateEmail,
    rewardType: 'fixed_cash',
    amount: 10,
    evaluatedAt: at,
  };
  return [
    { stream: purchaseStream(merchantId, orderId), type: 'PurchaseRecorded', data: purchase, at },
    { stream: purchaseStream(merchantId, orderId), type: 'ConversionAttributed', data: conversion, at },
    { stream: ledgerStream(merchantId, widgetId, link.advocateCustomerId), type: 'AdvocateRewardCounted', data: counted, at, ledger: true },
    { stream: rewardStream(conversionId), type: 'RewardApproved', data: approved, at },
  ];
}

/** The reactor's checkpoint after the event at `position` (written as the event right after it). */
function reactorCheckpoint({ position, ms }) {
  const at = new Date(ms).toISOString();
  return { stream: REACTOR_CHECKPOINT_STREAM, type: 'WebhookReactorCheckpointed', data: { position: String(position), checkpointedAt: at }, metadata: {}, at };
}

function unattributedPurchase({ merchantId, orderId, ms }) {
  const at = new Date(ms).toISOString();
  return {
    stream: purchaseStream(merchantId, orderId),
    type: 'PurchaseRecorded',
    data: {
      purchaseId: idAt(ms, 0),
      merchantId,
      orderId,
      paymentAmount: 12,
      newCustomer: 'unknown',
      couponCode: null,
      referralCode: null,
      emailAddress: null,
      ipAddress: null,
      referrer: null,
      customerId: null,
      widgetId: null,
      products: [],
      createdAt: at,
    },
    at,
  };
}

/** Key structure of a value (object keys recursively, sorted), to compare synthetic and real events. */
function shape(value) {
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, shape(value[k])]),
    );
  return value === null ? 'null' : typeof value;
}

/** Throws when a synthetic event's data, metadata or stream name differs in shape from the real one of the same type. */
function checkAgainst(referencePath, samples) {
  const ref = new Database(referencePath, { readonly: true, fileMustExist: true });
  const problems = [];
  const streamPattern = (s) =>
    s
      .replace(/[0-9]+/g, '#')
      .replace(/^(purchase-#-).*/, '$1…')
      .replace(/^(reward-of-conversion-).*/, '$1#');
  try {
    for (const sample of samples) {
      // A purchase with a referral code (the bench's write path), never the odd one without.
      const row = ref
        .prepare(
          `SELECT stream, data, metadata FROM events WHERE type = ? ${sample.type === 'PurchaseRecorded' ? "AND json_extract(data, '$.referralCode') IS NOT NULL" : ''} ORDER BY position DESC LIMIT 1`,
        )
        .get(sample.type);
      if (!row) {
        process.stderr.write(`gen-events: the reference store has no ${sample.type} event; its shape is not checked\n`);
        continue;
      }
      const real = { data: shape(JSON.parse(row.data)), metadata: shape(JSON.parse(row.metadata)), stream: streamPattern(row.stream) };
      const mine = { data: shape(sample.data), metadata: shape(sample.metadata ?? { merchantId: 1 }), stream: streamPattern(sample.stream) };
      for (const part of ['data', 'metadata', 'stream']) {
        const a = JSON.stringify(real[part]);
        const b = JSON.stringify(mine[part]);
        if (a !== b) problems.push(`${sample.type} ${part}: service writes ${a}, generator writes ${b}`);
      }
    }
  } finally {
    ref.close();
  }
  if (problems.length) throw new Error(`synthetic events differ from the service's:\n  ${problems.join('\n  ')}`);
}

/** The service's personal-data layer over the store's keys, from its build; undefined without one. */
async function personalDataLayer(dist, path) {
  if (!dist) return undefined;
  const load = (p) => import(pathToFileURL(join(dist, p)).href);
  const { PersonalDataEventStore } = await load('platform/personal-data/personal-data-event-store.js');
  const { SqliteKeyStore } = await load('platform/personal-data/sqlite-key-store.js');
  const { servicePersonalData } = await load('operations/personal-data.js');
  // Only sealing and opening are used: no adapter under it.
  return PersonalDataEventStore.open({ close: async () => undefined }, new SqliteKeyStore(`${path}-keys`), servicePersonalData);
}

export async function generate({ db: path, total, reference, dist }) {
  const started = performance.now();
  const layer = await personalDataLayer(dist, path);
  const opened = async (rows) => (layer ? (await layer.openAll(rows.map((data) => ({ data })))).map((e) => e.data) : rows);
  const sealed = async (events) => (layer ? await layer.sealData(events) : events.map((e) => e.data));
  const db = new Database(path, { fileMustExist: true });
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const existing = db.prepare('SELECT COUNT(*) AS n FROM events').get().n;
  const lastAt = db.prepare('SELECT MAX(created_at) AS at FROM events').get().at;
  const byType = (type) =>
    db
      .prepare('SELECT data FROM events WHERE type = ? ORDER BY position')
      .all(type)
      .map((r) => JSON.parse(r.data));
  const widget = byType('WidgetCreated').find((w) => w.rewardType !== null && w.rewardAmount !== null);
  if (!widget) throw new Error('the store has no widget with a reward');
  const links = (await opened(byType('ReferralLinkCreated')))
    .filter((l) => l.widgetId === widget.widgetId && l.type === 'customer_personal_url' && l.advocateCustomerId !== null)
    .map((l) => ({ code: l.code, advocateCustomerId: l.advocateCustomerId, advocateEmail: l.advocateEmail }));
  if (links.length === 0) throw new Error('the store has no personal referral link of the rewarded widget');
  const merchantId = widget.merchantId;
  const ledgerRevision = new Map(
    db
      .prepare("SELECT stream, MAX(revision) AS revision FROM events WHERE stream LIKE 'advocate-rewards-%' GROUP BY stream")
      .all()
      .map((r) => [r.stream, r.revision]),
  );

  let checkpointRevision = db.prepare('SELECT MAX(revision) AS revision FROM events WHERE stream = ?').get(REACTOR_CHECKPOINT_STREAM).revision ?? -1;

  const toAdd = Math.max(0, total - existing);
  const pick = random(7);
  let ms = Math.max(Date.parse(lastAt ?? new Date().toISOString()) + 1, Date.now());

  if (reference) {
    const sample = [
      ...purchaseEvents({ merchantId, widgetId: widget.widgetId, link: links[0], orderId: 'gen-check', ms }),
      reactorCheckpoint({ position: 1, ms }),
    ];
    const data = await sealed(sample);
    checkAgainst(
      reference,
      sample.map((e, i) => ({ ...e, data: data[i] })),
    );
  }

  const insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const metadata = JSON.stringify({ merchantId });
  let lastPosition = 0;
  const writeSealed = db.transaction((events, sealedData) => {
    events.forEach((e, i) => {
      let revision = 0;
      let data = sealedData[i];
      if (e.ledger) {
        revision = (ledgerRevision.get(e.stream) ?? -1) + 1;
        ledgerRevision.set(e.stream, revision);
      } else if (e.type === 'ConversionAttributed') {
        revision = 1;
      } else if (e.checkpoint) {
        revision = checkpointRevision += 1;
        data = reactorCheckpoint({ position: lastPosition, ms: Date.parse(e.at) }).data;
      }
      lastPosition = Number(
        insert.run(randomUUID(), e.stream, revision, e.type, JSON.stringify(data), e.metadata ? JSON.stringify(e.metadata) : metadata, e.at).lastInsertRowid,
      );
    });
  });
  const write = async (events) => writeSealed(events, await sealed(events));

  // A purchase's events, and how many of them are the reactor's source events: the same for every purchase.
  const perPurchase = purchaseEvents({ merchantId, widgetId: widget.widgetId, link: links[0], orderId: 'gen-count', ms });
  const sourcesPerPurchase = perPurchase.filter((e) => SOURCE_TYPES.has(e.type)).length;
  let batch = [];
  let added = 0;
  let purchases = 0;
  let sources = 0;
  for (;;) {
    // The reactor's checkpoint follows the purchase that brings its count up (its position is the last event written).
    const checkpointDue = sources + sourcesPerPurchase >= REACTOR_CHECKPOINT_EVERY;
    const events = perPurchase.length + (checkpointDue ? 1 : 0);
    if (added + events > toAdd) break;
    const link = links[Math.floor(pick() * links.length)];
    batch.push(...purchaseEvents({ merchantId, widgetId: widget.widgetId, link, orderId: `gen-${purchases}`, ms }));
    sources += sourcesPerPurchase;
    if (checkpointDue) {
      batch.push({ ...reactorCheckpoint({ position: 0, ms }), checkpoint: true });
      sources = 0;
    }
    added += events;
    purchases += 1;
    ms += 1;
    if (batch.length >= BATCH) {
      await write(batch);
      batch = [];
    }
  }
  const unattributed = toAdd - added;
  for (let i = 0; i < unattributed; i += 1) {
    batch.push(unattributedPurchase({ merchantId, orderId: `gen-plain-${i}`, ms }));
    ms += 1;
  }
  if (batch.length) await write(batch);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const final = db.prepare('SELECT COUNT(*) AS n FROM events').get().n;
  db.close();
  await layer?.close();
  return { existing, added: final - existing, purchases, unattributed, total: final, advocates: links.length, ms: Math.round(performance.now() - started) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await generate({ db: arg('db'), total: Number(arg('total', '1000000')), reference: arg('reference'), dist: arg('dist') });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.send?.(result);
  process.disconnect?.();
}
