// Prints the size of the built package's JavaScript, raw and gzipped (level 9), and fails above
// the budget: a client that browsers load on every page must stay small.
import { readdirSync, readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET = 10 * 1024;
const files = readdirSync(new URL('../dist/', import.meta.url)).filter((name) => name.endsWith('.js')).sort();
const all = Buffer.concat(files.map((name) => readFileSync(new URL(`../dist/${name}`, import.meta.url))));
const gzipped = gzipSync(all, { level: 9 }).length;
console.log(`${files.join(' ')}: ${all.length} bytes, ${gzipped} bytes gzipped (budget ${BUDGET})`);
if (gzipped > BUDGET) {
  console.error('over the budget');
  process.exit(1);
}
