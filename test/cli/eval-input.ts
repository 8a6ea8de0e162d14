// NDJSON for `sigmad eval` tests against the daemon fixture rules: detections, failed logons on a few
// hosts (their correlations fire), lines that do not parse; maybe a line over 1 MiB and a tail of
// pretty-printed objects.
export function evalInput(n: number, { long = false, pretty = false } = {}): string {
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const at = new Date(Date.UTC(2024, 4, 1) + i * 7_000).toISOString();
    if (i % 53 === 52) lines.push('{not json');
    else if (i % 5 === 0) lines.push(JSON.stringify({ CommandLine: `cmd /c whoami #${i}`, '@timestamp': at }));
    else lines.push(JSON.stringify({ EventID: 4625, Computer: `h${i % 7}`, '@timestamp': at, seq: i }));
    if (long && i === n >> 1) lines.push(`{"pad":"${'p'.repeat(1024 * 1024)}"}`);
  }
  if (pretty) lines.push('{', '  "CommandLine": "whoami /priv"', '}', '{"CommandLine": "whoami /all"}');
  return `${lines.join('\n')}\n`;
}
