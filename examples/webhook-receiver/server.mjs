// A webhook receiver that checks every delivery's Standard Webhooks signature with the official
// `standardwebhooks` package before it trusts the body, and answers 204 (taken) or 400 (refused).
// A delivery retried by the gateway keeps its webhook-id: a real receiver would process each id once.
//
//   WEBHOOK_SECRET=whsec_... PORT=3000 node server.mjs
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.WEBHOOK_SECRET;
if (!secret) {
  console.error('Set WEBHOOK_SECRET to the secret the gateway gave when the webhook was registered');
  process.exit(2);
}
const webhook = new Webhook(secret);

const server = http.createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let delivery;
    try {
      delivery = webhook.verify(body, request.headers);
    }
    catch (error) {
      console.log(`refused ${request.headers['webhook-id'] ?? '-'}: ${error.message}`);
      response.writeHead(400).end();
      return;
    }
    console.log(`verified ${request.headers['webhook-id']} ${delivery.type} ${delivery.topic} ${JSON.stringify(delivery.data)}`);
    response.writeHead(204).end();
  });
});

server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on ${server.address().port}`);
});
