package dev.streamgate.mirror;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.http.codec.ServerSentEvent;
import reactor.core.Disposable;

import dev.streamgate.support.BrokerProcess;
import dev.streamgate.support.GatewayKafka;
import dev.streamgate.support.GatewayProcess;
import dev.streamgate.support.SelfSignedCertificate;
import dev.streamgate.support.Sse;

import static dev.streamgate.mirror.KafkaMirrorIntegrationTests.parse;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Kafka over TLS both ways: a {@code kafka} publisher reading a cluster through its
 * SASL_SSL listener and a Kafka subscription writing through its SSL listener, each
 * trusting the broker's self-signed certificate given in {@code trustedCertificates}; a
 * certificate that is not trusted is refused at registration with the reason.
 */
class KafkaTlsIntegrationTests {

	private static final Duration WAIT = Duration.ofSeconds(60);

	@Test
	void aSourceAndASubscriptionOverTlsTrustTheGivenCertificateOnly(@TempDir Path dir) throws Exception {
		SelfSignedCertificate certificate = SelfSignedCertificate.create(dir, "broker");
		SelfSignedCertificate stranger = SelfSignedCertificate.create(dir, "stranger");
		try (BrokerProcess broker = BrokerProcess.startWithScram(dir.resolve("tls-broker"),
				dir.resolve("tls-broker.log"), "tls-user", "tls-pa55", certificate);
				GatewayProcess gateway = GatewayProcess.startReady(dir.resolve("gateway.log"),
						GatewayKafka.processArguments(dir))) {
			try (Admin admin = Admin
				.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
				admin
					.createTopics(
							List.of(new NewTopic("prices-src", 1, (short) 1), new NewTopic("audit", 1, (short) 1)))
					.all()
					.get();
			}

			// The source, through SASL_SSL with SCRAM-SHA-512.
			String source = "{\"type\":\"kafka\",\"bootstrapServers\":\"" + broker.saslSslBootstrapServers()
					+ "\",\"topic\":\"prices-src\",\"startFrom\":\"earliest\",\"security\":{\"protocol\":\"SASL_SSL\","
					+ "\"mechanism\":\"SCRAM-SHA-512\",\"username\":\"tls-user\",\"password\":\"tls-pa55\"%s}}";
			for (String untrusted : List.of("", trusting(stranger))) {
				assertThat(gateway.post("/api/v1/topics",
						"{\"id\":\"prices\",\"publisher\":" + source.formatted(untrusted) + "}", 400))
					.as("trusting %s", untrusted.isEmpty() ? "the JVM's CAs" : "another certificate")
					.contains("\"pointer\":\"/publisher\"")
					.contains("TLS handshake with Kafka at " + broker.saslSslBootstrapServers() + " failed");
			}
			gateway.post("/api/v1/topics",
					"{\"id\":\"prices\",\"publisher\":" + source.formatted(trusting(certificate)) + "}", 201);
			assertThat(gateway.get("/api/v1/topics/prices")).contains("\"password\":\"******\"")
				.contains("BEGIN CERTIFICATE");

			// The subscription, through SSL (no credentials).
			gateway.post("/api/v1/topics", "{\"id\":\"ledger\",\"publisher\":{\"type\":\"http-post\"}}", 201);
			String subscription = "{\"kafka\":{\"bootstrapServers\":\"" + broker.sslBootstrapServers()
					+ "\",\"topic\":\"audit\",\"security\":{\"protocol\":\"SSL\"%s}}}";
			assertThat(gateway.post("/api/v1/topics/ledger/webhooks", subscription.formatted(trusting(stranger)), 400))
				.contains("\"pointer\":\"/kafka\"")
				.contains("TLS handshake with Kafka at " + broker.sslBootstrapServers() + " failed");
			gateway.post("/api/v1/topics/ledger/webhooks", subscription.formatted(trusting(certificate)), 201);

			List<ServerSentEvent<String>> prices = new CopyOnWriteArrayList<>();
			Disposable stream = new Sse(gateway.baseUrl()).stream("/api/v1/stream/prices?lastEventId=earliest", null)
				.subscribe(prices::add);
			try (KafkaProducer<String, String> producer = new KafkaProducer<>(
					Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()), new StringSerializer(),
					new StringSerializer())) {
				for (int n = 0; n < 3; n++) {
					producer.send(new ProducerRecord<>("prices-src", "EURUSD", "{\"bid\":" + n + "}")).get();
					gateway.post("/api/v1/publish/ledger", "{\"n\":" + n + "}", 202);
				}
				await().atMost(WAIT).until(() -> prices.size() >= 3);
			}
			finally {
				stream.dispose();
			}
			assertThat(prices)
				.extracting((event) -> parse(event.data()).asJsonObject().getJsonObject("value").getInt("bid"))
				.containsExactly(0, 1, 2);
			assertThat(await().atMost(WAIT)
				.pollInterval(Duration.ofMillis(500))
				.until(() -> read(broker.bootstrapServers(), "audit").stream()
					.map((record) -> parse(record.value()).asJsonObject().getJsonObject("data").getInt("n"))
					.distinct()
					.toList(), (received) -> received.size() >= 3))
				.containsExactly(0, 1, 2);
		}
	}

	/** The {@code trustedCertificates} member for a certificate, JSON-escaped. */
	private static String trusting(SelfSignedCertificate certificate) {
		return ",\"trustedCertificates\":\"" + certificate.pem().replace("\r", "").replace("\n", "\\n") + "\"";
	}

	private static List<ConsumerRecord<String, String>> read(String bootstrapServers, String topic) {
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), new StringDeserializer(),
				new StringDeserializer())) {
			TopicPartition partition = new TopicPartition(topic, 0);
			consumer.assign(List.of(partition));
			consumer.seekToBeginning(List.of(partition));
			long end = consumer.endOffsets(List.of(partition)).get(partition);
			List<ConsumerRecord<String, String>> records = new ArrayList<>();
			while (consumer.position(partition) < end) {
				consumer.poll(Duration.ofMillis(500)).forEach(records::add);
			}
			return records;
		}
	}

}
