package dev.streamgate.storage.kafka;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import dev.streamgate.core.storage.KafkaSink;
import dev.streamgate.core.topic.KafkaEndpoint;

/**
 * Writes subscriptions' deliveries into the Kafka clusters they name: one idempotent
 * producer per cluster and credentials (all in-sync replicas acknowledge each record),
 * kept while in use and closed after ten idle minutes; the gateway's own cluster, with
 * its own connection settings, when a target names none.
 */
public final class KafkaTargets implements KafkaSink, AutoCloseable {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	private final KafkaClients clients;

	private final Cache<Connection, KafkaProducer<String, byte[]>> producers = Caffeine.newBuilder()
		.expireAfterAccess(Duration.ofMinutes(10))
		.<Connection, KafkaProducer<String, byte[]>>removalListener((connection, producer, cause) -> {
			if (producer != null) {
				producer.close(Duration.ZERO);
			}
		})
		.build();

	KafkaTargets(KafkaClients clients) {
		this.clients = clients;
	}

	@Override
	public Mono<Void> send(KafkaEndpoint target, String key, byte[] value, Map<String, String> headers) {
		return Mono.<Void>create((sink) -> {
			ProducerRecord<String, byte[]> record = new ProducerRecord<>(target.topic(), key, value);
			headers.forEach((name, text) -> record.headers()
				.add(new RecordHeader(name, text.getBytes(StandardCharsets.UTF_8))));
			KafkaProducer<String, byte[]> producer = this.producers.get(Connection.of(target),
					(connection) -> new KafkaProducer<>(producerConfig(target), new StringSerializer(),
							new ByteArraySerializer()));
			// send() may wait up to max.block.ms for the topic's metadata: not on an
			// event
			// loop (subscribeOn below).
			producer.send(record, (metadata, ex) -> {
				if (ex != null) {
					sink.error(new KafkaSinkException(describe(target, ex)));
				}
				else {
					sink.success();
				}
			});
		})
			.subscribeOn(Schedulers.boundedElastic())
			.onErrorMap((ex) -> !(ex instanceof KafkaSinkException),
					(ex) -> new KafkaSinkException(describe(target, ex)));
	}

	@Override
	public Mono<Optional<String>> check(KafkaEndpoint target) {
		return Mono.fromCallable(() -> {
			Admin admin = Admin.create(adminConfig(target));
			try {
				admin.describeTopics(List.of(target.topic()))
					.allTopicNames()
					.get(TIMEOUT.toMillis() + 1000, TimeUnit.MILLISECONDS);
				return Optional.<String>empty();
			}
			catch (ExecutionException ex) {
				return Optional.of(describe(target, ex.getCause()));
			}
			catch (java.util.concurrent.TimeoutException ex) {
				return Optional.of(describe(target, new TimeoutException("no answer")));
			}
			finally {
				// once, without waiting for requests still in flight
				admin.close(Duration.ZERO);
			}
		}).subscribeOn(Schedulers.boundedElastic());
	}

	private Map<String, Object> connection(KafkaEndpoint target, String purpose) {
		return connection(this.clients, target, purpose);
	}

	/**
	 * Where and how to connect: the endpoint's cluster, or the gateway's own.
	 * @param clients the gateway's own connection settings
	 * @param target the endpoint
	 * @param purpose the client id's suffix
	 * @return the client settings
	 */
	static Map<String, Object> connection(KafkaClients clients, KafkaEndpoint target, String purpose) {
		if (target.bootstrapServers() == null) {
			return clients.common(purpose);
		}
		Map<String, Object> config = new HashMap<>();
		config.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, String.join(",", target.servers()));
		config.put(CommonClientConfigs.CLIENT_ID_CONFIG, "streamgate-" + purpose);
		security(target.security(), config);
		return config;
	}

	private Map<String, Object> producerConfig(KafkaEndpoint target) {
		Map<String, Object> config = connection(target, "subscription");
		config.put(ProducerConfig.ACKS_CONFIG, "all");
		config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
		int timeout = (int) TIMEOUT.toMillis();
		config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, timeout);
		config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, timeout / 2);
		config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, timeout);
		return config;
	}

	private Map<String, Object> adminConfig(KafkaEndpoint target) {
		Map<String, Object> config = connection(target, "subscription-check");
		int timeout = (int) TIMEOUT.toMillis();
		config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeout / 2);
		config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeout);
		return config;
	}

	private static void security(KafkaEndpoint.Security security, Map<String, Object> config) {
		if (security == null) {
			return;
		}
		config.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, security.protocol().name());
		if (security.mechanism() != null) {
			config.put(SaslConfigs.SASL_MECHANISM, security.mechanism().toString());
			String module = (security.mechanism() == KafkaEndpoint.Mechanism.PLAIN)
					? "org.apache.kafka.common.security.plain.PlainLoginModule"
					: "org.apache.kafka.common.security.scram.ScramLoginModule";
			// Username and password are checked to hold no quote
			// (KafkaEndpoint.Security).
			config.put(SaslConfigs.SASL_JAAS_CONFIG, module + " required username=\"" + security.username()
					+ "\" password=\"" + security.password() + "\";");
		}
		if (security.trustedCertificates() != null) {
			config.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
			config.put(SslConfigs.SSL_TRUSTSTORE_CERTIFICATES_CONFIG, security.trustedCertificates());
		}
	}

	/**
	 * What went wrong, for the attempts log and the registration's 400: never a password.
	 */
	static String describe(KafkaEndpoint target, Throwable ex) {
		Throwable cause = ex;
		while (cause instanceof ExecutionException && cause.getCause() != null) {
			cause = cause.getCause();
		}
		String cluster = (target.bootstrapServers() != null) ? target.bootstrapServers() : "the gateway's cluster";
		if (cause instanceof UnknownTopicOrPartitionException) {
			return "Kafka topic " + target.topic() + " does not exist at " + cluster;
		}
		if (cause instanceof SslAuthenticationException) {
			// The handshake's own reason (an untrusted certificate, a host name that is
			// not the certificate's) is the innermost cause.
			Throwable reason = cause;
			while (reason.getCause() != null) {
				reason = reason.getCause();
			}
			return "TLS handshake with Kafka at " + cluster + " failed (is its certificate or CA in "
					+ "security.trustedCertificates?): " + reason.getMessage();
		}
		if (cause instanceof AuthenticationException) {
			return "Kafka at " + cluster + " refused the credentials: " + cause.getMessage();
		}
		if (cause instanceof AuthorizationException) {
			return "Kafka at " + cluster + " does not allow access to " + target.topic() + ": " + cause.getMessage();
		}
		if (cause instanceof TimeoutException) {
			return "Kafka at " + cluster + " did not answer within " + TIMEOUT.toSeconds() + " s (unreachable, "
					+ "or the topic " + target.topic() + " does not exist)";
		}
		return "Kafka at " + cluster + ": " + cause.getClass().getSimpleName()
				+ ((cause.getMessage() != null) ? ": " + cause.getMessage() : "");
	}

	@Override
	public void close() {
		this.producers.invalidateAll();
		this.producers.cleanUp();
	}

	/** What a producer is for: a cluster and credentials, not a topic. */
	private record Connection(List<String> servers, KafkaEndpoint.Security security) {

		static Connection of(KafkaEndpoint target) {
			return new Connection(target.servers(), target.security());
		}

	}

}
