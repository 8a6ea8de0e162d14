// vitest's global setup: build dist/ (tsc, the web console, the bundle in dist/bin) once before any test
// file runs when it is older than the sources, so no file pays for the build inside its own time budget and
// every spawned `sigmad` is the bundle that ships.
import { ensureBuilt } from '../e2e/build.js';

export default async function setup(): Promise<void> {
  await ensureBuilt();
}
