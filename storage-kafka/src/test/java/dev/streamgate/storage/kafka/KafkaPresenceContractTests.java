package dev.streamgate.storage.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.streamgate.core.storage.Presence;
import dev.streamgate.core.storage.Presence.Entry;
import dev.streamgate.core.storage.PresenceContract;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The presence contract over a Kafka broker, and what only a cluster has: entries seen by
 * every node, a node's entries gone when it leaves, and settled by one live node when it
 * dies.
 */
class KafkaPresenceContractTests extends PresenceContract {

	private static final Duration INTERVAL = Duration.ofMillis(200);

	private static final Duration EXPIRY = Duration.ofSeconds(2);

	private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();

	private KafkaClients clients;

	private KafkaPresence presence;

	@BeforeEach
	void start() {
		this.clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(TestKafka.uniquePrefix()));
		Admin admin = this.clients.admin();
		this.opened.add(admin);
		new ConfigTopics(admin, this.clients, TestKafka.eventStorage()).ensure();
		this.presence = node();
	}

	private KafkaPresence node() {
		KafkaWriter writer = this.clients.writer("presence");
		KafkaPresence node = new KafkaPresence(this.clients, writer, INTERVAL, EXPIRY);
		this.opened.add(0, writer);
		this.opened.add(0, node);
		return node;
	}

	@AfterEach
	void close() throws Exception {
		for (AutoCloseable closeable : this.opened) {
			closeable.close();
		}
	}

	@Override
	protected Presence presence() {
		return this.presence;
	}

	private static List<String> keys(Presence presence) {
		return presence.entries().block(TIMEOUT).stream().map(Entry::key).sorted().toList();
	}

	@Test
	void everyNodeSeesTheEntriesOfEveryOtherAndTheirNodes() {
		KafkaPresence other = node();
		this.presence.hold("here", "1".getBytes(StandardCharsets.UTF_8)).block(TIMEOUT);
		other.hold("there", "2".getBytes(StandardCharsets.UTF_8)).block(TIMEOUT);

		await().atMost(TIMEOUT).until(() -> keys(this.presence).equals(List.of("here", "there")));
		await().atMost(TIMEOUT).until(() -> keys(other).equals(List.of("here", "there")));
		assertThat(other.entries().block(TIMEOUT)).filteredOn((entry) -> entry.key().equals("here"))
			.extracting(Entry::node)
			.containsExactly(this.presence.node());
	}

	@Test
	void whatANodeStillHeldWhenItLeftIsSettledByALiveNode() {
		KafkaPresence leaving = node();
		List<Entry> orphans = new CopyOnWriteArrayList<>();
		this.presence.orphans().subscribe(orphans::add);
		leaving.hold("kept", "1".getBytes(StandardCharsets.UTF_8)).block(TIMEOUT);
		leaving.hold("released", "2".getBytes(StandardCharsets.UTF_8)).block(TIMEOUT);
		leaving.release("released").block(TIMEOUT);
		await().atMost(TIMEOUT).until(() -> keys(this.presence).equals(List.of("kept")));

		leaving.close();

		await().atMost(TIMEOUT).until(() -> keys(this.presence).isEmpty() && !orphans.isEmpty());
		assertThat(orphans).extracting(Entry::key).containsExactly("kept");
	}

	@Test
	void theEntriesOfADeadNodeLeaveTheListAndOneLiveNodeSettlesThem() {
		KafkaPresence second = node();
		KafkaPresence dying = node();
		List<Entry> orphans = new CopyOnWriteArrayList<>();
		this.presence.orphans().subscribe(orphans::add);
		second.orphans().subscribe(orphans::add);
		dying.hold("a", "1".getBytes(StandardCharsets.UTF_8)).block(TIMEOUT);
		dying.hold("b", "2".getBytes(StandardCharsets.UTF_8)).block(TIMEOUT);
		await().atMost(TIMEOUT).until(() -> keys(this.presence).equals(List.of("a", "b")));
		await().atMost(TIMEOUT).until(() -> keys(second).equals(List.of("a", "b")));

		dying.halt();

		await().atMost(TIMEOUT).until(() -> keys(this.presence).isEmpty() && keys(second).isEmpty());
		await().atMost(TIMEOUT).until(() -> orphans.size() >= 2);
		assertThat(orphans).extracting(Entry::key).containsExactlyInAnyOrder("a", "b");
		assertThat(orphans).extracting(Entry::node).containsOnly(dying.node());
	}

}
