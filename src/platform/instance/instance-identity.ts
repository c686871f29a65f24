/**
 * Who a running service is (instance id, host, pid, port once listening, start time), as the
 * holder of its storage records it, and the refusal a second process gets when it finds one.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';

export interface InstanceIdentity {
  instanceId: string;
  host: string;
  pid: number;
  /** Known once the server listens. */
  port?: number;
  startedAt: Date;
}

/** Instance ids made in this process: a holder among them is another app here, not another process (pids repeat across containers). */
const madeHere = new Set<string>();

export function thisInstance(startedAt: Date): InstanceIdentity {
  const instanceId = randomUUID();
  madeHere.add(instanceId);
  return { instanceId, host: hostname(), pid: process.pid, startedAt };
}

/** A start refused because another instance holds the storage; main.ts logs its message and exits 1. */
export class StorageInUseError extends Error {}

export const NOT_SUPPORTED_YET = 'several processes on one store are not supported yet';

/** "another process (pid 1234 on host h, listening on :3000, since …)", as far as the record says. */
export function describeHolder(holder: Partial<InstanceIdentity> | undefined): string {
  if (!holder || holder.pid === undefined) return 'another process (which one is not recorded)';
  const who = holder.instanceId !== undefined && madeHere.has(holder.instanceId) ? 'another app in this process' : 'another process';
  const port = holder.port === undefined ? 'not listening yet' : `listening on :${holder.port}`;
  const since = holder.startedAt ? `, since ${holder.startedAt.toISOString()}` : '';
  return `${who} (pid ${holder.pid} on host ${holder.host ?? 'unknown'}, ${port}${since})`;
}
