/**
 * Sealed values opened on the embedded store's reader thread (sqlite-reader.ts), so that a long
 * read's main thread (a replay, a rebuild) only parses: the thread replaces each envelope in a
 * batch's text by the JSON it seals, or `null` where a key is gone, without parsing the text. An
 * envelope's text never needs escaping (envelope.ts: SEALED_TEXT), so its start and end are found
 * by searching, and nothing inside a JSON string can look like them (its quotes would be escaped).
 */
import { createRequire } from 'node:module';
import type { ReadAheadTransform } from '../event-store/sqlite-reader.js';
import { openSealedText, SEALED_TEXT } from './envelope.js';

interface OpenerData {
  driver: string;
  keysPath: string;
  /** SEALED_TEXT's source: what isEnvelope takes for an envelope, this takes too. */
  sealedText: string;
  /** Counts erasures (the layer adds one after destroying keys): the thread forgets what it opened when it changes. */
  erasures: Int32Array;
}

/** Opened values and looked-up keys a read keeps, each, before it starts again. */
const KEEP = 10_000;
/** A key store with at most this many keys is read whole at the start of a read (one scan is far cheaper than a lookup per key). */
const READ_WHOLE = 200_000;

/** Shipped to the thread as source text (ReadAheadTransform): it uses only its arguments. */
function makeTextOpener(
  data: OpenerData,
  require: NodeJS.Require,
  openText: typeof openSealedText,
  limits: { keep: number; readWhole: number },
): (text: string) => string {
  const Driver = require(data.driver);
  const crypto = require('node:crypto');
  const db = new Driver(data.keysPath, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  const keyById = db.prepare('SELECT key FROM subject_keys WHERE id = ?').pluck();
  const everyKey = db.prepare('SELECT id, key FROM subject_keys').raw();
  const count = db.prepare('SELECT COUNT(*) FROM subject_keys').pluck();
  const start = '{"$pd":"';
  const end = '"}';
  const sealedText = new RegExp(data.sealedText);
  // An advocate's values recur in every purchase they brought: each ciphertext is opened once per read.
  const keys = new Map<string, Buffer | null>();
  /** The keys read whole: one buffer of them all, and each one's offset by id. */
  let slab = Buffer.alloc(0);
  const offsets = new Map<string, number>();
  const opened = new Map<string, string[]>();
  /** JSON text by envelope text: the same envelope recurs (an advocate's address in every purchase). */
  const values = new Map<string, string>();
  let erasures = -1;
  const keyOf = (id: string): Buffer | undefined => {
    const offset = offsets.get(id);
    if (offset !== undefined) return slab.subarray(offset, offset + 32);
    let key = keys.get(id);
    if (key === undefined) {
      key = (keyById.get(id) as Buffer | undefined) ?? null;
      keys.set(id, key);
    }
    return key ?? undefined;
  };
  // At the first batch and after each erasure: the keys that are left, read whole when there are few.
  const refresh = () => {
    erasures = Atomics.load(data.erasures, 0);
    keys.clear();
    offsets.clear();
    opened.clear();
    values.clear();
    const n = count.get() as number;
    if (n > limits.readWhole) return;
    slab = Buffer.alloc(n * 32);
    let offset = 0;
    for (const [id, key] of everyKey.iterate() as Iterable<[string, Buffer]>) {
      if (offset + 32 > slab.length) break;
      key.copy(slab, offset);
      offsets.set(id, offset);
      offset += 32;
    }
  };
  return (text: string) => {
    let at = text.indexOf(start);
    if (at < 0) return text;
    if (Atomics.load(data.erasures, 0) !== erasures) refresh();
    if (opened.size > limits.keep || values.size > limits.keep) {
      opened.clear();
      values.clear();
    }
    if (keys.size > limits.keep) keys.clear();
    // An envelope ends at the first '"}' after its start; a span that is not all SEALED_TEXT (an
    // object of a client's with a "$pd" key and more, or other characters) is left as it is.
    const parts: string[] = [];
    let from = 0;
    while (at >= 0) {
      const close = text.indexOf(end, at + start.length);
      if (close < 0) break;
      const sealed = text.slice(at + start.length, close);
      let json = values.get(sealed);
      if (json === undefined) {
        if (!sealedText.test(sealed)) {
          at = text.indexOf(start, at + start.length);
          continue;
        }
        json = openText(sealed, keyOf, crypto, opened) ?? 'null';
        values.set(sealed, json);
      }
      parts.push(text.slice(from, at), json);
      from = close + end.length;
      at = text.indexOf(start, from);
    }
    parts.push(text.slice(from));
    return parts.join('');
  };
}

/** The transform that opens values sealed under the keys of the embedded key store at `keysPath`. */
export function threadOpener(keysPath: string, erasures: Int32Array, limits = { keep: KEEP, readWhole: READ_WHOLE }): ReadAheadTransform {
  const data: OpenerData = { driver: createRequire(import.meta.url).resolve('better-sqlite3'), keysPath, sealedText: SEALED_TEXT.source, erasures };
  return {
    source: `(data, require) => (${makeTextOpener.toString()})(data, require, ${openSealedText.toString()}, ${JSON.stringify(limits)})`,
    data,
  };
}
