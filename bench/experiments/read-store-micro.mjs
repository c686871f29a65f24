/**
 * Experiment (not part of `npm run bench`): MemoryReadStore on its own, with documents shaped like
 * the purchases, conversions and rewards read models (their real CollectionDefs, imported from
 * the build) and, optionally, audit-index entries. Measures write, update and query throughput,
 * and the heap the store keeps per purchase, split into the documents themselves (the same
 * documents held in a plain array) and the store's own overhead.
 *
 *   npm run build
 *   node --expose-gc bench/experiments/read-store-micro.mjs [--dist <copy of dist/>] [--purchases 100000]
 *        [--audit] [--queries 20000] [--seed 1]
 *
 * Prints one JSON object. Compare builds by passing each one's dist/ (`--dist`).
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

function arg(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : fallback;
}
const flag = (name) => process.argv.includes(`--${name}`);

if (typeof global.gc !== 'function') {
  process.stderr.write('run with node --expose-gc\n');
  process.exit(2);
}

const DIST = resolve(arg('dist', join(ROOT, 'dist')));
const dist = (p) => import(pathToFileURL(join(DIST, p)).href);
const { MemoryReadStore } = await dist('platform/read-store/memory-read-store.js');
const { purchasesCollection } = await dist('sales/read-models/purchases.projection.js');
const { conversionsCollection } = await dist('sales/read-models/conversions.projection.js');
const { rewardsCollection } = await dist('sales/read-models/rewards.projection.js');

const PURCHASES = Number(arg('purchases', '100000'));
const QUERIES = Number(arg('queries', '20000'));
const AUDIT = flag('audit');
// The audit index's definition, when the build still has it as a read model.
const auditIndexCollection = AUDIT ? (await dist('audit/audit-index.projection.js')).auditIndexCollection : undefined;
const ADVOCATES = 1000;
const WIDGETS = 3;

// A small deterministic PRNG, so every build sees the same documents and queries.
let seed = Number(arg('seed', '1')) >>> 0 || 1;
function random() {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 4294967296;
}
const pick = (n) => Math.floor(random() * n);

// Ids like the service's (ms since 2026-01-01 × 1024 + n): above 2^31, so not small integers.
const EPOCH = Date.UTC(2026, 0, 1);
let lastId = 0;
function newId(ms) {
  const candidate = (ms - EPOCH) * 1024;
  lastId = candidate > lastId ? candidate : lastId + 1;
  return lastId;
}
const docKey = (id) => String(id).padStart(16, '0');

const merchantId = newId(EPOCH + 1000);
const widgetIds = Array.from({ length: WIDGETS }, (_, i) => newId(EPOCH + 2000 + i));
const advocates = Array.from({ length: ADVOCATES }, (_, i) => ({
  id: newId(EPOCH + 10_000 + i),
  email: `advocate${i}@example.com`,
  code: `CODE${String(i).padStart(6, '0')}`,
  widget: widgetIds[i % WIDGETS],
}));

/**
 * Builds every document version up front, so that the timed phases measure the store only.
 * One purchase is 7 writes in replay order: PurchaseRecorded (purchase), ConversionAttributed
 * (conversion, purchase update), RewardPending (reward, conversion update), RewardApproved (reward
 * and conversion updates); 1% of the purchases carry a created_at 5 s in the past (a non-append
 * insert). Every 10th reward is later rejected by hand (`late`). With --audit, 18 audit entries
 * per purchase as well.
 */
function makeWorkload() {
  const ops = [];
  const late = [];
  let t = EPOCH + 86_400_000;
  for (let i = 0; i < PURCHASES; i += 1) {
    t += 1 + pick(20);
    const at = new Date(random() < 0.01 ? t - 5_000 : t).toISOString();
    const later = new Date(t + 3).toISOString();
    const advocate = advocates[pick(ADVOCATES)];
    const purchaseId = newId(t);
    const conversionId = newId(t + 1);
    const rewardId = newId(t + 2);
    const friendEmail = `friend${i}@example.com`;
    const purchase = {
      _id: docKey(purchaseId),
      id: purchaseId,
      merchant_id: merchantId,
      order_id: `order-${i}`,
      coupon_code: null,
      referral_code: advocate.code,
      payment_amount: 1000 + pick(9000),
      new_customer: null,
      ip_address: '203.0.113.7',
      referrer: null,
      widget_id: null,
      email_address: friendEmail,
      customer_id: null,
      products: [],
      conversion_id: null,
      attribution_failure: null,
      created_at: at,
    };
    const conversion = {
      _id: docKey(conversionId),
      id: conversionId,
      merchant_id: merchantId,
      widget_id: advocate.widget,
      purchase_id: purchaseId,
      referral_code: advocate.code,
      coupon_code: null,
      channel: 'link',
      source: { kind: 'personal_link' },
      advocate_customer_id: advocate.id,
      advocate_email_address: advocate.email,
      advocate_email_lc: advocate.email,
      friend_customer_id: null,
      friend_email_lc: friendEmail,
      reward_evaluated: false,
      reward_status: null,
      created_at: at,
      last_modified_at: at,
    };
    const reward = {
      _id: docKey(rewardId),
      id: rewardId,
      merchant_id: merchantId,
      conversion_id: conversionId,
      purchase_id: purchaseId,
      widget_id: advocate.widget,
      advocate_customer_id: advocate.id,
      advocate_email_address: advocate.email,
      reward_type: 'fixed_cash',
      amount: 10,
      status: 'pending',
      rejected_reasons: [],
      evaluated_at: null,
      decided_by: null,
      decision_reason: null,
      validation_attempts: [],
      next_validation_at: null,
      created_at: at,
      last_modified_at: at,
    };
    // In the order the projections see them: PurchaseRecorded, ConversionAttributed,
    // RewardPending, RewardApproved.
    const attributed = { ...purchase, conversion_id: conversionId, widget_id: advocate.widget };
    const pending = { ...conversion, reward_evaluated: true, reward_status: 'pending', last_modified_at: later };
    const approved = { ...reward, status: 'approved', evaluated_at: later, last_modified_at: later };
    ops.push(['purchases', purchase], ['conversions', conversion], ['purchases', attributed], ['rewards', reward], ['conversions', pending]);
    ops.push(['rewards', approved], ['conversions', { ...pending, reward_status: 'approved' }]);
    // Every 10th reward is rejected by hand later on: a move out of the middle of long lists.
    if (i % 10 === 0) {
      late.push(['rewards', { ...approved, status: 'rejected', decided_by: 'admin', decision_reason: 'fraud', last_modified_at: later }]);
      late.push(['conversions', { ...pending, reward_status: 'rejected' }]);
    }
    if (AUDIT) {
      // 4 events, each indexed under '*' and every entity it names (18 entries), never updated.
      const streams = [`purchase-${merchantId}-${i}`, `purchase-${merchantId}-${i}`, `advocate-rewards-${advocate.id}`, `reward-of-conversion-${conversionId}`];
      const entities = [
        [`purchase:${purchaseId}`, `referral_link:${advocate.code}`],
        [`purchase:${purchaseId}`, `conversion:${conversionId}`, `customer:${advocate.id}`, `widget:${advocate.widget}`, `referral_link:${advocate.code}`],
        [`customer:${advocate.id}`, `widget:${advocate.widget}`],
        [`reward:${rewardId}`, `conversion:${conversionId}`, `purchase:${purchaseId}`, `customer:${advocate.id}`, `widget:${advocate.widget}`],
      ];
      const types = ['PurchaseRecorded', 'ConversionAttributed', 'AdvocateRewardCounted', 'RewardApproved'];
      for (let e = 0; e < 4; e += 1) {
        const position = String(i * 4 + e + 1).padStart(40, '0');
        for (const entity of ['*', ...entities[e]]) {
          ops.push([
            'audit_index',
            {
              _id: entity === '*' ? position : `${entity}@${position}`,
              merchant_id: merchantId,
              entity,
              event_id: `evt-${i}-${e}`,
              type: types[e],
              stream: streams[e],
              revision: e,
              position: String(i * 4 + e + 1),
              created_at: at,
            },
          ]);
        }
      }
    }
  }
  return { ops, late, lastTime: t };
}

function heapUsed() {
  global.gc();
  global.gc();
  return process.memoryUsage().heapUsed;
}

const defs = {
  purchases: purchasesCollection,
  conversions: conversionsCollection,
  rewards: rewardsCollection,
  ...(AUDIT ? { audit_index: auditIndexCollection } : {}),
};

const before = heapUsed();
let work = makeWorkload();
// The versions the store ends up holding, kept in an array after the workload is dropped, so
// that the heap with and without the store tells the store's own overhead.
const finals = new Map();
for (const [name, doc] of [...work.ops, ...work.late]) finals.set(`${name}/${doc._id}`, doc);
let finalDocs = [...finals.values()];
finals.clear();

const store = new MemoryReadStore();
const collections = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, store.collection(def)]));
let position = 0n;

const result = { dist: DIST, purchases: PURCHASES, audit: AUDIT, docs: 0, phases: {} };
async function timed(name, n, body) {
  const started = performance.now();
  await body();
  const ms = performance.now() - started;
  result.phases[name] = { ops: n, ms: Math.round(ms), opsPerSecond: Math.round(n / (ms / 1000)) };
}

/** As the projection runner applies an event: get the document, then put the next version. */
async function apply(list) {
  for (const [name, doc] of list) {
    position += 1n;
    const c = collections[name];
    await c.get(doc._id);
    await c.put(doc, position);
  }
}
await timed('apply (get + put), replay order', work.ops.length, () => apply(work.ops));
await timed('late updates (get + put), moves within long lists', work.late.length, () => apply(work.late));
await timed('stale put (already seen)', work.ops.length, async () => {
  for (const [name, doc] of work.ops) await collections[name].put(doc, 1n);
});

const { lastTime } = work;
work = undefined;
for (const c of Object.values(collections)) result.docs += await c.count({});

// Queries, all from the live store.
const P = collections.purchases;
const C = collections.conversions;
const R = collections.rewards;
const day = (ms) => new Date(ms).toISOString().slice(0, 10) + 'T00:00:00.000Z';
const midTime = EPOCH + 86_400_000 + ((lastTime - EPOCH - 86_400_000) >> 1);
const queries = {
  'purchases: keyset pages of 21 by merchant': async () => {
    let after;
    for (let i = 0; i < QUERIES; i += 1) {
      const page = await P.list({ where: { merchant_id: merchantId }, after, limit: 21 });
      const last = page[page.length - 1];
      after = page.length === 21 ? { created_at: last.created_at, _id: last._id } : undefined;
    }
  },
  'purchases: findOne by order_id': async () => {
    for (let i = 0; i < QUERIES; i += 1) await P.findOne({ merchant_id: merchantId, order_id: `order-${pick(PURCHASES)}` });
  },
  'conversions: first page by advocate_customer_id': async () => {
    for (let i = 0; i < QUERIES; i += 1) await C.list({ where: { merchant_id: merchantId, advocate_customer_id: advocates[pick(ADVOCATES)].id }, limit: 21 });
  },
  'conversions: advocate + widget (residual filter), /20': async () => {
    for (let i = 0; i < QUERIES / 20; i += 1) {
      const a = advocates[pick(ADVOCATES)];
      await C.list({ where: { merchant_id: merchantId, advocate_customer_id: a.id, widget_id: a.widget }, limit: 21 });
    }
  },
  'rewards: approved, offset 1000, limit 21': async () => {
    for (let i = 0; i < QUERIES; i += 1) await R.list({ where: { merchant_id: merchantId, status: 'approved' }, offset: 1000, limit: 21 });
  },
  'purchases: one day from the middle, limit 21': async () => {
    for (let i = 0; i < QUERIES; i += 1)
      await P.list({ where: { merchant_id: merchantId }, createdFrom: day(midTime), createdBefore: day(midTime + 86_400_000), limit: 21 });
  },
  'purchases: count by merchant (v1 total), /100': async () => {
    for (let i = 0; i < QUERIES / 100; i += 1) await P.count({ where: { merchant_id: merchantId } });
  },
};
result.queries = {};
for (const [name, body] of Object.entries(queries)) {
  const started = performance.now();
  await body();
  const ms = performance.now() - started;
  const n = QUERIES / Number(/\/(\d+)$/.exec(name)?.[1] ?? 1);
  result.queries[name] = { ops: n, ms: Math.round(ms), opsPerSecond: Math.round(n / (ms / 1000)) };
}

// Memory: the heap with the store and the final documents, then with the documents alone.
const withStore = heapUsed();
await store.clear();
const docsAlone = heapUsed();
result.memory = {
  totalBytesPerPurchase: Math.round((withStore - before) / PURCHASES),
  documentsBytesPerPurchase: Math.round((docsAlone - before) / PURCHASES),
  storeOverheadBytesPerPurchase: Math.round((withStore - docsAlone) / PURCHASES),
  storeOverheadBytesPerDocument: Math.round((withStore - docsAlone) / result.docs),
};
result.documentsKept = finalDocs.length;
finalDocs = undefined;
process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
