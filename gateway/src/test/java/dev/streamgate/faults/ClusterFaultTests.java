package dev.streamgate.faults;

import java.io.StringReader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import jakarta.json.Json;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.streamgate.bench.sink.WebhookSink;
import dev.streamgate.bench.sink.WebhookSink.Received;
import dev.streamgate.core.event.EventStorageProperties;
import dev.streamgate.support.BrokerCluster;
import dev.streamgate.support.GatewayProcess;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A cluster as operators run one: three Kafka nodes (replication factor 3, min ISR 2) and
 * three gateway nodes of every role in JVMs of their own. Under publish load through
 * every gateway node, with SSE subscribers on each node, two webhooks and a snapshot
 * topic published through all of them, the broker leading the event topic's partition is
 * killed and started again, then a gateway node is killed with SIGKILL and started again,
 * then another is restarted cleanly (SIGTERM), as a rolling restart does. Subscribers and
 * publishers go to another node when theirs is gone, as they would behind a load
 * balancer.
 */
@Tag("faults")
class ClusterFaultTests {

	private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

	private static final Pattern ACTIVE = Pattern.compile("(?m)^streamgate_webhook_active(?:\\{[^}]*\\})? (\\S+)$");

	private static final Duration SESSION = Duration.ofSeconds(6);

	@Test
	void aClusterLosesNothingWhenABrokerAndGatewayNodesFail(@TempDir Path dir) throws Exception {
		Duration spell = Duration.ofSeconds(Accounts.full() ? 30 : 8);
		try (BrokerCluster kafka = BrokerCluster.start(dir); WebhookSink sink = WebhookSink.start("127.0.0.1", 0)) {
			int[] ports = IntStream.range(0, 3).map((i) -> GatewayProcess.freePort()).toArray();
			String[] args = { "--spring.kafka.bootstrap-servers=" + kafka.bootstrapServers(),
					"--streamgate.kafka.replication-factor=3", "--streamgate.kafka.min-insync-replicas=2",
					"--streamgate.kafka.lease-session-timeout=" + SESSION.toSeconds() + "s",
					"--streamgate.security.enabled=false", "--streamgate.egress.allowed-cidrs=127.0.0.1/32",
					"--streamgate.egress.allow-public=false",
					"--streamgate.webhook.retry-schedule=500ms,500ms,500ms,500ms,500ms,500ms,500ms,500ms,500ms,500ms" };
			GatewayProcess[] nodes = startAll(dir, ports, args);
			List<String> urls = Arrays.stream(nodes).map(GatewayProcess::baseUrl).toList();
			// Clients reconnect for ever: closed whatever the outcome, they do not
			// outlive
			// the test in a JVM that runs others.
			List<ResumingSubscriber> streams = new ArrayList<>();
			List<ResumingSubscriber> documents = new ArrayList<>();
			List<SteadyPublisher> publishers = new ArrayList<>();
			try {
				Faults.post(urls.get(0), "/api/v1/topics",
						"{\"id\":\"events\",\"payloadType\":\"event\",\"publisher\":{\"type\":\"http-post\"}}");
				Faults.post(urls.get(1), "/api/v1/topics",
						"{\"id\":\"doc\",\"payloadType\":\"snapshot\",\"publisher\":{\"type\":\"http-post\"}}");
				for (int w = 0; w < 2; w++) {
					sink.endpoint("w" + w, SECRET);
					Faults.post(urls.get(w), "/api/v1/topics/events/webhooks",
							"{\"url\":\"" + sink.url("w" + w) + "\",\"secret\":\"" + SECRET + "\"}");
				}
				// Every node knows both topics before anyone subscribes or publishes.
				for (String url : urls) {
					await().atMost(Duration.ofSeconds(30))
						.until(() -> Faults.status(url, "/api/v1/topics/doc") == 200
								&& Faults.status(url, "/api/v1/topics/events") == 200);
				}
				for (int n = 0; n < 3; n++) {
					List<String> fromHere = rotated(urls, n);
					streams.add(new ResumingSubscriber(fromHere, "/api/v1/stream/events?lastEventId=earliest"));
					documents.add(new ResumingSubscriber(fromHere, "/api/v1/stream/doc?mode=snapshot-patch"));
				}
				SteadyPublisher events = new SteadyPublisher(urls, "events", Duration.ofMillis(20));
				SteadyPublisher snapshots = new SteadyPublisher(urls, "doc", Duration.ofMillis(50));
				publishers.addAll(List.of(events, snapshots));

				Thread.sleep(spell.toMillis());
				int partition = new EventStorageProperties(12, Duration.ofDays(7)).sharedPartitionOf("events");
				int leader = kafka.leaderOf("streamgate.events", partition);
				long beforeBroker = events.slowestAnswerMillis(0, events.sent());
				// The publish in flight when the broker dies is the first to wait.
				int brokerKilledAt = events.sent() - 1;
				long brokerKilled = System.currentTimeMillis();
				kafka.kill(leader);
				await().atMost(Duration.ofSeconds(60))
					.pollInterval(Duration.ofMillis(100))
					.until(() -> kafka.leaderOf("streamgate.events", partition) != leader);
				long leaderMoved = System.currentTimeMillis() - brokerKilled;
				Thread.sleep(spell.toMillis());
				long brokerStall = events.slowestAnswerMillis(brokerKilledAt, events.sent());
				kafka.restart(leader);
				Thread.sleep(spell.toMillis());

				// The node that delivers a webhook is killed, so that another must take
				// it over after the lease session times out.
				int killed = deliveringNode(urls, -1);
				int killedAt = events.sent();
				long gatewayKilled = System.currentTimeMillis();
				nodes[killed].kill();
				Thread.sleep(Math.max(spell.toMillis(), SESSION.toMillis() + 4000));
				nodes[killed] = GatewayProcess.startReady(dir.resolve("gateway-" + killed + ".log"), ports[killed],
						args);
				Thread.sleep(spell.toMillis());

				int stopped = deliveringNode(urls, killed);
				long gatewayStopped = System.currentTimeMillis();
				nodes[stopped].stop();
				long stoppedFor = System.currentTimeMillis() - gatewayStopped;
				nodes[stopped] = GatewayProcess.startReady(dir.resolve("gateway-" + stopped + ".log"), ports[stopped],
						args);
				Thread.sleep(spell.toMillis());
				long restarted = System.currentTimeMillis();
				events.close();
				snapshots.close();

				assertThat(events.unexpected()).isEmpty();
				assertThat(snapshots.unexpected()).isEmpty();
				assertThat(events.acknowledged()).hasSizeGreaterThan(killedAt / 3);
				int extra = 0;
				for (int n = 0; n < 3; n++) {
					extra += Accounts.assertExactlyOnce("stream " + n, streams.get(n), events);
				}
				int duplicates = 0;
				long[] webhookGap = new long[2];
				long[] webhookHandover = new long[2];
				for (int w = 0; w < 2; w++) {
					duplicates += Accounts.assertAtLeastOnceInOrder(sink, "w" + w, events);
					webhookGap[w] = longestPause(sink, "w" + w, gatewayKilled, gatewayStopped);
					webhookHandover[w] = longestPause(sink, "w" + w, gatewayStopped, restarted);
				}
				String last = "{\"seq\":" + finalDocument(urls, snapshots) + "}";
				for (int n = 0; n < 3; n++) {
					ResumingSubscriber subscriber = documents.get(n);
					await("document " + n).atMost(Duration.ofSeconds(60))
						.pollInterval(Duration.ofMillis(500))
						.untilAsserted(() -> assertThat(subscriber.document())
							.isEqualTo(Json.createReader(new StringReader(last)).read()));
				}
				int reconnections = streams.stream().mapToInt(ResumingSubscriber::connections).sum() - streams.size();
				System.out.printf("Cluster of 3 brokers (RF 3, min ISR 2) and 3 gateway nodes, %d s spells.%n"
						+ "Broker %d, leader of the event topic's partition, killed: leader moved after %d ms; slowest "
						+ "publish answer %d ms before, %d ms after the kill.%n"
						+ "Gateway node %d killed (SIGKILL), node %d restarted (SIGTERM, stopped in %d ms); longest pause "
						+ "of the webhooks' deliveries after the SIGKILL %d and %d ms, after the SIGTERM %d and %d ms.%n"
						+ "Events: %d publishes, %d acknowledged, %d refused (503), %d unanswered; each of 3 SSE "
						+ "subscribers received every acknowledged event exactly once (%d unacknowledged seen in all, %d "
						+ "reconnections in all); each of 2 webhooks received all in order (%d duplicate deliveries).%n"
						+ "Snapshot topic: %d publishes, %d acknowledged, %d refused, %d unanswered, slowest answer %d ms; "
						+ "3 document subscribers end on the last acknowledged document %s.%n", spell.toSeconds(),
						leader, leaderMoved, beforeBroker, brokerStall, killed, stopped, stoppedFor, webhookGap[0],
						webhookGap[1], webhookHandover[0], webhookHandover[1], events.sent(),
						events.acknowledged().size(), events.refused().size(), events.unanswered().size(), extra,
						reconnections, duplicates, snapshots.sent(), snapshots.acknowledged().size(),
						snapshots.refused().size(), snapshots.unanswered().size(), snapshots.slowestAnswerMillis(),
						last);
			}
			finally {
				publishers.forEach(SteadyPublisher::close);
				streams.forEach(ResumingSubscriber::close);
				documents.forEach(ResumingSubscriber::close);
				for (GatewayProcess node : nodes) {
					node.close();
				}
			}
		}
	}

	private static GatewayProcess[] startAll(Path dir, int[] ports, String[] args) {
		List<CompletableFuture<GatewayProcess>> starting = new ArrayList<>();
		for (int n = 0; n < ports.length; n++) {
			int node = n;
			starting.add(CompletableFuture.supplyAsync(
					() -> GatewayProcess.startReady(dir.resolve("gateway-" + node + ".log"), ports[node], args)));
		}
		return starting.stream().map(CompletableFuture::join).toArray(GatewayProcess[]::new);
	}

	/**
	 * The node that delivers the most webhooks, other than one left out.
	 */
	private static int deliveringNode(List<String> urls, int except) {
		int best = (except == 0) ? 1 : 0;
		double most = -1;
		for (int n = 0; n < urls.size(); n++) {
			Matcher active = ACTIVE.matcher(Faults.prometheus(urls.get(n)));
			double count = active.find() ? Double.parseDouble(active.group(1)) : 0;
			if (n != except && count > most) {
				best = n;
				most = count;
			}
		}
		return best;
	}

	private static List<String> rotated(List<String> urls, int first) {
		List<String> rotated = new ArrayList<>(urls);
		Collections.rotate(rotated, -first);
		return rotated;
	}

	/**
	 * The longest time between two deliveries to an endpoint within a window: how long
	 * its webhook waited for another node to take it over.
	 */
	private static long longestPause(WebhookSink sink, String endpoint, long from, long to) {
		List<Long> times = sink.endpoint(endpoint)
			.received()
			.stream()
			.map(Received::receivedAt)
			.filter((at) -> at >= from && at <= to)
			.sorted()
			.toList();
		long longest = times.isEmpty() ? to - from : times.get(0) - from;
		for (int i = 1; i < times.size(); i++) {
			longest = Math.max(longest, times.get(i) - times.get(i - 1));
		}
		return longest;
	}

	/**
	 * Publishes one more document through the nodes in turn until one acknowledges it:
	 * the last acknowledged document, the one every subscriber must end on.
	 */
	private static int finalDocument(List<String> urls, SteadyPublisher snapshots) {
		int seq = snapshots.sent() + 1;
		await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).ignoreExceptions().until(() -> {
			Faults.post(urls.get(seq % urls.size()), "/api/v1/publish/doc", "{\"seq\":" + seq + "}");
			return true;
		});
		return seq;
	}

}
