package dev.streamgate.storage.kafka;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.admin.Admin;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import reactor.core.publisher.Mono;

import dev.streamgate.core.event.EventStorageProperties;
import dev.streamgate.core.role.ConditionalOnRole;
import dev.streamgate.core.role.Role;
import dev.streamgate.core.storage.ConditionalOnStorage;
import dev.streamgate.core.storage.IdempotencyProperties;
import dev.streamgate.core.storage.IdempotencyStore;
import dev.streamgate.core.storage.StorageMode;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.storage.WebhookStore;

/**
 * Wires the Kafka boundary: the broker address (or the embedded broker), the clients, the
 * configuration topics and the stores built on them.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnStorage(StorageMode.KAFKA)
@EnableConfigurationProperties({ KafkaConnectionProperties.class, StreamgateKafkaProperties.class,
		KafkaReplicationProperties.class, EmbeddedKafkaProperties.class, IdempotencyProperties.class })
public class KafkaConfiguration {

	@Bean(destroyMethod = "close")
	KafkaBootstrap kafkaBootstrap(KafkaConnectionProperties connection, EmbeddedKafkaProperties embedded) {
		return KafkaBootstrap.from(connection, embedded);
	}

	@Bean
	KafkaClients kafkaClients(KafkaBootstrap bootstrap, KafkaConnectionProperties connection,
			StreamgateKafkaProperties properties, KafkaReplicationProperties replication) {
		return new KafkaClients(bootstrap.bootstrapServers(), connection.properties(), properties, replication);
	}

	@Bean(destroyMethod = "close")
	Admin kafkaAdmin(KafkaClients clients) {
		return clients.admin();
	}

	@Bean(destroyMethod = "close")
	KafkaWriter configWriter(KafkaClients clients) {
		return clients.writer("config");
	}

	@Bean(destroyMethod = "close")
	KafkaTopicStore topicStore(KafkaClients clients, Admin kafkaAdmin, KafkaWriter configWriter,
			EventStorageProperties storage, KafkaBootstrap bootstrap) {
		new ConfigTopics(kafkaAdmin, clients, storage).ensure(!bootstrap.isEmbedded());
		KafkaTopicStore store = new KafkaTopicStore(clients, configWriter);
		store.start();
		// As Kafka Connect's config store does: start serving once the definitions are
		// read.
		store.awaitCaughtUp(clients.properties().startupTimeout());
		return store;
	}

	@Bean(destroyMethod = "close")
	PublicationSenders eventSenders(KafkaClients clients) {
		return clients.publicationSenders("events");
	}

	@Bean(destroyMethod = "close")
	KafkaWriter eventBatchWriter(KafkaClients clients) {
		return clients.transactionalWriter("events-batch");
	}

	@Bean
	KafkaEventLog eventLog(Admin kafkaAdmin, KafkaClients clients, PublicationSenders eventSenders,
			KafkaWriter eventBatchWriter, EventStorageProperties storage) {
		return new KafkaEventLog(kafkaAdmin, clients, eventSenders, eventBatchWriter, storage);
	}

	@Bean(destroyMethod = "close")
	KafkaEventTail eventTail(KafkaClients clients, KafkaEventLog eventLog) {
		return new KafkaEventTail(clients, eventLog);
	}

	@Bean(destroyMethod = "close")
	KafkaSnapshotStore snapshotStore(KafkaClients clients, KafkaWriter configWriter, KafkaTopicStore topicStore) {
		KafkaSnapshotStore store = new KafkaSnapshotStore(clients, configWriter);
		store.start();
		return store;
	}

	@Bean(destroyMethod = "close")
	KafkaWebhookStore webhookStore(KafkaClients clients, KafkaWriter configWriter, KafkaTopicStore topicStore) {
		KafkaWebhookStore store = new KafkaWebhookStore(clients, configWriter);
		store.start();
		// As the topic store: every role that reads registrations serves them once read.
		store.awaitCaughtUp(clients.properties().startupTimeout());
		return store;
	}

	/**
	 * Writes delivery attempts and cursors: a record per delivery and per webhook each
	 * second, batched so that the broker sees a few produce requests a second, not one
	 * per webhook.
	 */
	@Bean(destroyMethod = "close")
	KafkaWriter bulkWriter(KafkaClients clients) {
		return clients.bulkWriter("bulk");
	}

	@Bean(destroyMethod = "close")
	KafkaDeliveryStates deliveryStates(KafkaClients clients, KafkaWriter bulkWriter, KafkaTopicStore topicStore,
			Environment environment) {
		KafkaDeliveryStates states = new KafkaDeliveryStates(clients, bulkWriter);
		// Every webhook's cursor, committed each second: read only where webhooks are
		// delivered or their status is served.
		if (Role.WEBHOOK.isEnabled(environment) || Role.ADMIN.isEnabled(environment)) {
			states.startReading();
		}
		return states;
	}

	@Bean(destroyMethod = "close")
	KafkaEventTypeCounts eventTypeCounts(KafkaClients clients, KafkaWriter bulkWriter, KafkaTopicStore topicStore) {
		KafkaEventTypeCounts counts = new KafkaEventTypeCounts(clients, bulkWriter);
		counts.start();
		return counts;
	}

	@Bean(destroyMethod = "close")
	KafkaAttemptLog attemptLog(KafkaClients clients, KafkaWriter bulkWriter, KafkaTopicStore topicStore,
			Environment environment) {
		KafkaAttemptLog log = new KafkaAttemptLog(clients, bulkWriter);
		// One record per delivery attempt: read only where the admin API lists them.
		if (Role.ADMIN.isEnabled(environment)) {
			log.startReading();
		}
		return log;
	}

	@Bean(destroyMethod = "close")
	KafkaPresence presence(KafkaClients clients, KafkaWriter bulkWriter, KafkaTopicStore topicStore) {
		return new KafkaPresence(clients, bulkWriter);
	}

	@Bean
	KafkaLeases leases(KafkaClients clients, KafkaTopicStore topicStore) {
		return new KafkaLeases(clients);
	}

	@Bean(destroyMethod = "close")
	KafkaTargets kafkaTargets(KafkaClients clients) {
		return new KafkaTargets(clients);
	}

	@Bean
	KafkaMirroring kafkaMirroring(KafkaClients clients, KafkaEventLog eventLog, Admin kafkaAdmin) {
		return new KafkaMirroring(clients, eventLog, kafkaAdmin);
	}

	@Bean(destroyMethod = "close")
	@ConditionalOnRole(Role.INGEST)
	KafkaIdempotencyStore idempotencyStore(KafkaClients kafkaClients, IdempotencyProperties properties,
			ObjectProvider<MeterRegistry> meters) {
		KafkaIdempotencyStore store = KafkaIdempotencyStore.start(kafkaClients, properties.idempotencyWindow(),
				properties.idempotencyMemory().toBytes());
		meters.ifAvailable((registry) -> {
			Gauge.builder("streamgate.idempotency.keys", store, KafkaIdempotencyStore::indexedKeys)
				.description("Idempotency-Keys answered within the window, indexed on this node")
				.register(registry);
			Gauge.builder("streamgate.idempotency.index", store, KafkaIdempotencyStore::indexBytes)
				.description("Memory the index of Idempotency-Key answers takes")
				.baseUnit("bytes")
				.register(registry);
		});
		return store;
	}

	@Bean(destroyMethod = "close")
	KafkaHealthIndicator kafkaHealthIndicator(Admin kafkaAdmin, KafkaClients clients, Environment environment) {
		// A node that publishes is ready only while Kafka takes its writes.
		return new KafkaHealthIndicator(kafkaAdmin, clients.bootstrapServers(), Role.INGEST.isEnabled(environment)
				? KafkaEventLog.sharedName(clients.properties().topicPrefix()) : null);
	}

	@Bean
	ReactiveHealthIndicator topicRegistryHealthIndicator(TopicStore topicStore, WebhookStore webhookStore,
			ObjectProvider<IdempotencyStore> idempotencyKeys) {
		return () -> Mono.fromSupplier(() -> {
			IdempotencyStore keys = idempotencyKeys.getIfAvailable();
			if (keys != null && !keys.isCaughtUp()) {
				// Until then a keyed publish is answered 503: the node is not ready to
				// ingest.
				return Health.outOfService().withDetail("reason", "still reading Idempotency-Key answers").build();
			}
			if (!topicStore.isCaughtUp()) {
				return Health.outOfService().withDetail("reason", "still reading topic definitions").build();
			}
			if (!webhookStore.isCaughtUp()) {
				return Health.outOfService().withDetail("reason", "still reading webhook registrations").build();
			}
			return Health.up().build();
		});
	}

}
