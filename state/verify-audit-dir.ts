import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { verifyAuditChain, type AuditVerification } from './audit-trail.js';
import { LmdbBackend } from './lmdb-backend.js';

/** `sigmad audit verify --state-db DIR`: recompute the audit chain of a state directory (read-only). */
export async function verifyAuditDir(dir: string): Promise<AuditVerification> {
  if (!existsSync(join(dir, 'data.mdb'))) throw new Error(`no state database in ${dir}`);
  const backend = new LmdbBackend(dir, { readOnly: true });
  try {
    return verifyAuditChain(backend);
  } finally {
    await backend.close();
  }
}
