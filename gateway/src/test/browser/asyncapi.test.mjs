// Validates the AsyncAPI document a gateway serves with the AsyncAPI parser (the reference
// JavaScript implementation): fetches ASYNCAPI_URL (with TOKEN as a bearer token when given),
// prints each diagnostic, and fails on any error. Prints `ok - valid AsyncAPI <version>, N channels`
// and the channel ids, one per line as `channel <id>`, for the test to check.
import { Parser } from '@asyncapi/parser';

const headers = process.env.TOKEN ? { Authorization: `Bearer ${process.env.TOKEN}` } : {};
const response = await fetch(process.env.ASYNCAPI_URL, { headers });
if (response.status !== 200) throw new Error(`GET ${process.env.ASYNCAPI_URL} answered ${response.status}`);
const text = await response.text();
const parser = new Parser();
const diagnostics = await parser.validate(text);
for (const d of diagnostics) {
  console.log(`diagnostic ${d.severity} ${d.code} ${JSON.stringify(d.path)} ${d.message}`);
}
// Severity 0 is an error.
const errors = diagnostics.filter((d) => d.severity === 0);
if (errors.length > 0) throw new Error(`${errors.length} error(s) in the AsyncAPI document`);
const { document } = await parser.parse(text);
if (!document) throw new Error('the parser made no document');
const channels = document.channels().all();
console.log(`ok - valid AsyncAPI ${document.version()}, ${channels.length} channels`);
for (const channel of channels) console.log(`channel ${channel.id()}`);
process.exit(0);
