// Real databases for the SQL differential tests and the conversion bench: a private PostgreSQL 15 cluster (initdb into a temporary
// directory, listening only on a unix socket there, stopped and removed after) and Debian's sqlite3 shell
// (its built-in REGEXP is what the SQLite queries need). Events go into `security_events(id, data)`.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

const PG_BIN = '/usr/lib/postgresql/15/bin';
const PG_PORT = 5432;

export interface TableEvent {
  readonly id: number;
  readonly data: unknown;
}

/** uid/gid of the `postgres` account: postgres refuses to run as root. */
function postgresAccount(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
  if (line === undefined) throw new Error('running as root but there is no postgres account to run the server');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

export class PostgresServer {
  private constructor(
    private readonly dir: string,
    private readonly proc: ChildProcess,
    readonly client: pg.Client,
  ) {}

  static async start(): Promise<PostgresServer> {
    const dir = mkdtempSync(join(tmpdir(), 'sigmad-pg-'));
    const account = postgresAccount();
    if (account !== undefined) chownSync(dir, account.uid, account.gid);
    const as = account === undefined ? {} : { uid: account.uid, gid: account.gid };
    const data = join(dir, 'data');
    const init = spawnSync(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync'], { ...as, encoding: 'utf8' });
    if (init.status !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`initdb failed: ${init.stderr}`);
    }
    const proc = spawn(join(PG_BIN, 'postgres'), ['-D', data, '-k', dir, '-p', String(PG_PORT), '-c', 'listen_addresses=', '-c', 'fsync=off', '-c', 'full_page_writes=off'], { ...as, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    proc.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    const deadline = Date.now() + 60_000;
    for (;;) {
      const client = new pg.Client({ host: dir, port: PG_PORT, user: 'postgres', database: 'postgres' });
      try {
        await client.connect();
        return new PostgresServer(dir, proc, client);
      } catch (e) {
        await client.end().catch(() => undefined);
        if (proc.exitCode !== null || Date.now() > deadline) {
          proc.kill('SIGKILL');
          rmSync(dir, { recursive: true, force: true });
          throw new Error(`postgres did not start: ${(e as Error).message}\n${log}`);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async load(events: readonly TableEvent[]): Promise<void> {
    await this.client.query('DROP TABLE IF EXISTS security_events');
    await this.client.query('CREATE TABLE security_events (id integer PRIMARY KEY, data jsonb NOT NULL)');
    await this.client.query(
      "INSERT INTO security_events SELECT (e->>'id')::integer, e->'data' FROM jsonb_array_elements($1::jsonb) AS e",
      [JSON.stringify(events)],
    );
  }

  /** Ids of the rows a query returns, sorted. */
  async ids(query: string): Promise<number[]> {
    const r = await this.client.query<{ id: number }>(`SELECT id FROM (${query}) AS q ORDER BY id`);
    return r.rows.map((row) => row.id);
  }

  /** Sorted ids per query, or the error PostgreSQL gave for it (one round trip each: batching measured no faster). */
  async idsOf(queries: readonly string[]): Promise<(number[] | string)[]> {
    const out: (number[] | string)[] = [];
    for (const q of queries) out.push(await this.ids(q).catch((e: Error) => `postgres: ${e.message}`));
    return out;
  }

  async rows(query: string): Promise<Record<string, unknown>[]> {
    return (await this.client.query<Record<string, unknown>>(query)).rows;
  }

  async stop(): Promise<void> {
    await this.client.end().catch(() => undefined);
    if (this.proc.exitCode === null) {
      const exited = new Promise((r) => this.proc.once('exit', r));
      // SIGINT: fast shutdown (no waiting for clients).
      this.proc.kill('SIGINT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function sqliteString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/** A SQLite database file queried through the sqlite3 shell, many queries per run. */
export class SqliteDatabase {
  private readonly dir = mkdtempSync(join(tmpdir(), 'sigmad-sqlite-'));
  private readonly file = join(this.dir, 'events.db');

  load(events: readonly TableEvent[]): void {
    this.run(this.loadSql(events));
  }

  private loadSql(events: readonly TableEvent[]): string {
    const rows = events.map((e) => `(${e.id}, ${sqliteString(JSON.stringify(e.data))})`);
    return [
      'DROP TABLE IF EXISTS security_events;',
      'CREATE TABLE security_events (id INTEGER PRIMARY KEY, data TEXT NOT NULL);',
      'BEGIN;',
      ...rows.map((r) => `INSERT INTO security_events VALUES ${r};`),
      'COMMIT;',
    ].join('\n');
  }

  /**
   * Sorted row ids per query (same order as `queries`), or the error SQLite gave for that query; with
   * `events`, the table is loaded with them first in the same run of the shell.
   */
  idsOf(queries: readonly string[], events?: readonly TableEvent[]): (number[] | string)[] {
    const script = this.idsScript(queries, events);
    const { stdout, stderr } = this.run(script.sql, false);
    return parseIds(queries.length, script.firstLines, stdout, stderr);
  }

  /** `idsOf` over the loaded table, the queries shared among `shells` sqlite3 processes running at once. */
  async idsOfInParallel(queries: readonly string[], shells: number): Promise<(number[] | string)[]> {
    const size = Math.ceil(queries.length / shells);
    const parts = await Promise.all(
      Array.from({ length: shells }, async (_, k) => {
        const part = queries.slice(k * size, (k + 1) * size);
        const script = this.idsScript(part);
        const file = join(this.dir, `part-${k}.sql`);
        writeFileSync(file, script.sql);
        const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>((done, fail) => {
          execFile('sqlite3', [this.file], { maxBuffer: 1 << 28 }, (error, out, err) => (error !== null && typeof error.code !== 'number' ? fail(error) : done({ stdout: out, stderr: err }))).stdin?.end(`.read ${file}\n`);
        });
        return parseIds(part.length, script.firstLines, stdout, stderr);
      }),
    );
    return parts.flat();
  }

  private idsScript(queries: readonly string[], events?: readonly TableEvent[]): { sql: string; firstLines: number[] } {
    const statements = [...(events === undefined ? [] : [this.loadSql(events)])];
    const first = statements.length;
    statements.push(...queries.map((q, i) => `SELECT ${i}, coalesce(group_concat(id, ','), '') FROM (${q});`));
    // The shell names a failing statement by its first line: remember where each one starts.
    const firstLines: number[] = [];
    let line = 1;
    for (const st of statements) {
      firstLines.push(line);
      line += st.split('\n').length;
    }
    return { sql: statements.join('\n'), firstLines: firstLines.slice(first) };
  }

  /** The rows of one query, as the shell's JSON output mode gives them. */
  rows(query: string): Record<string, unknown>[] {
    const { stdout } = this.run(`.mode json\n${query};`);
    return stdout.trim() === '' ? [] : (JSON.parse(stdout) as Record<string, unknown>[]);
  }

  private run(sql: string, bail = true): { stdout: string; stderr: string } {
    const script = join(this.dir, 'script.sql');
    writeFileSync(script, sql);
    const r = spawnSync('sqlite3', [...(bail ? ['-bail'] : []), this.file], { input: `.read ${script}\n`, encoding: 'utf8', maxBuffer: 1 << 28 });
    if (bail && r.status !== 0) throw new Error(`sqlite3 failed (${String(r.status)}): ${r.stderr}`);
    return { stdout: r.stdout, stderr: r.stderr };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function parseIds(count: number, firstLines: readonly number[], stdout: string, stderr: string): (number[] | string)[] {
  const result: (number[] | string)[] = Array.from({ length: count }, () => 'no result');
  for (const out of stdout.split('\n')) {
    const m = /^(\d+)\|([\d,]*)$/.exec(out);
    if (m === null) continue;
    result[Number(m[1])] = m[2] === '' ? [] : (m[2] as string).split(',').map(Number).sort((a, b) => a - b);
  }
  for (const m of stderr.matchAll(/near line (\d+): (.*)/g)) {
    const at = Number(m[1]);
    const index = firstLines.findLastIndex((start) => start <= at);
    if (index < 0) throw new Error(`sqlite3 failed to load the events: ${m[0]}`);
    result[index] = `sqlite3: ${m[2] as string}`;
  }
  return result;
}
