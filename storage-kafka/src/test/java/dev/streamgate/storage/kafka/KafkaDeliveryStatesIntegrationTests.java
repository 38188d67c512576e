package dev.streamgate.storage.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import dev.streamgate.core.webhook.DeliveryState;
import dev.streamgate.support.TestKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Delivery states committed many at once, on a real broker: another node reads each
 * webhook's state as if it had been committed alone, and a state of an older epoch in a
 * batch does not replace a newer one.
 */
class KafkaDeliveryStatesIntegrationTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(15);

	private KafkaClients clients;

	private Admin admin;

	private final List<KafkaWriter> writers = new ArrayList<>();

	@BeforeEach
	void createTopics() {
		this.clients = new KafkaClients(TestKafka.bootstrapServers(), Map.of(),
				ConfigTopicsIntegrationTests.properties(TestKafka.uniquePrefix()));
		this.admin = this.clients.admin();
		new ConfigTopics(this.admin, this.clients, TestKafka.eventStorage()).ensure();
	}

	@AfterEach
	void close() {
		this.writers.forEach(KafkaWriter::close);
		this.admin.close();
	}

	@Test
	void statesCommittedTogetherAreReadOnAnotherNodeEachUnderItsWebhook() {
		try (KafkaDeliveryStates a = start("a"); KafkaDeliveryStates b = start("b")) {
			Map<String, DeliveryState> states = new LinkedHashMap<>();
			for (int i = 0; i < 300; i++) {
				states.put("wh_" + i, new DeliveryState(i % 3, Integer.toString(i), false, null, i, 0));
			}
			a.saveAll(states).block(TIMEOUT);
			await().atMost(TIMEOUT).untilAsserted(() -> assertThat(b.get("wh_299")).isPresent());
			states.forEach((webhookId, state) -> assertThat(b.get(webhookId)).as(webhookId).contains(state));
		}
	}

	@Test
	void aStateOfAnOlderEpochInABatchDoesNotReplaceTheCommittedOne() {
		try (KafkaDeliveryStates a = start("a"); KafkaDeliveryStates b = start("b")) {
			DeliveryState replayed = new DeliveryState(2, "-1", false, null, 0, 0);
			a.save("wh_replayed", replayed).block(TIMEOUT);
			// A late commit of the dispatcher the replay overtook, beside another
			// webhook.
			DeliveryState late = new DeliveryState(1, "40", false, null, 41, 0);
			DeliveryState other = new DeliveryState(0, "7", false, null, 8, 0);
			Map<String, DeliveryState> batch = new LinkedHashMap<>();
			batch.put("wh_replayed", late);
			batch.put("wh_other", other);
			a.saveAll(batch).block(TIMEOUT);
			// One partition: once the other webhook's record is read, so is the late one
			// before it.
			await().atMost(TIMEOUT).untilAsserted(() -> assertThat(b.get("wh_other")).contains(other));
			assertThat(b.get("wh_replayed")).contains(replayed);
		}
	}

	private KafkaDeliveryStates start(String node) {
		KafkaWriter writer = this.clients.bulkWriter("states-" + node);
		this.writers.add(writer);
		KafkaDeliveryStates states = new KafkaDeliveryStates(this.clients, writer);
		states.startReading();
		// Caught up once the new topic's partition has a leader to ask its end: writes
		// before that are refused while the broker is still creating its partitions.
		states.awaitCaughtUp(TIMEOUT);
		assertThat(states.isCaughtUp()).as(node + " caught up").isTrue();
		return states;
	}

}
