package dev.streamgate.publish;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.storage.TopicStore;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.publish.ingest.PublishResponse;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The HTTP POST ingest over the memory storage, in this module: what a publication is
 * answered and what it leaves in the log, without a broker. The gateway's tests check the
 * same over Kafka, with security, CloudEvents and faults.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
		properties = { "streamgate.storage=memory", "streamgate.ingest.max-payload=1KB",
				// The gateway answers problems with its own handler; here Spring Boot's
				// does.
				"spring.webflux.problemdetails.enabled=true" })
class PublishingInMemoryTests {

	private static final Duration WAIT = Duration.ofSeconds(10);

	@LocalServerPort
	private int port;

	@Autowired
	private TopicStore topics;

	@Autowired
	private EventPublisher publisher;

	private WebClient client;

	@BeforeEach
	void client() {
		this.client = WebClient.create("http://127.0.0.1:" + this.port);
	}

	private Topic topic(String id, PayloadType type) {
		return this.topics
			.save(new Topic(id, null, type, null, null, null, null, null, null, null, null, null).withDefaults())
			.block(WAIT)
			.topic();
	}

	private Answer post(String topicId, MediaType type, String body, String idempotencyKey) {
		return this.client.post().uri("/api/v1/publish/" + topicId).contentType(type).headers((headers) -> {
			if (idempotencyKey != null) {
				headers.set("Idempotency-Key", idempotencyKey);
			}
		}).bodyValue(body).exchangeToMono((response) -> {
			int status = response.statusCode().value();
			return (status == 202) ? response.bodyToMono(PublishResponse.class).map((ok) -> new Answer(status, ok))
					: response.releaseBody().thenReturn(new Answer(status, null));
		}).block(WAIT);
	}

	private String last(Topic topic) {
		return new String(this.publisher.lastEvent(topic).block(WAIT).data(), StandardCharsets.UTF_8);
	}

	@Test
	void aPublicationIsAnsweredWithTheCursorAfterItOnceStored() {
		Topic topic = topic("orders", PayloadType.EVENT);
		Answer first = post("orders", MediaType.APPLICATION_JSON, "{\"n\":1}", null);
		Answer second = post("orders", MediaType.APPLICATION_JSON, "{\"n\":2}", null);
		assertThat(first.status()).isEqualTo(202);
		assertThat(second.response().id()).isNotEqualTo(first.response().id());
		assertThat(last(topic)).isEqualTo("{\"n\":2}");
	}

	@Test
	void aBatchIsPublishedAllOrNothing() {
		Topic topic = topic("lines", PayloadType.EVENT);
		Answer batch = post("lines", MediaType.parseMediaType("application/x-ndjson"), "{\"n\":1}\n{\"n\":2}\n", null);
		assertThat(batch.response().ids()).hasSize(2);
		assertThat(
				post("lines", MediaType.parseMediaType("application/x-ndjson"), "{\"n\":3}\n{\"n\":\n", null).status())
			.isEqualTo(400);
		assertThat(last(topic)).isEqualTo("{\"n\":2}");
	}

	@Test
	void aRetryWithTheSameIdempotencyKeyIsAnsweredAsTheFirstAndPublishesNothing() {
		Topic topic = topic("payments", PayloadType.EVENT);
		Answer first = post("payments", MediaType.APPLICATION_JSON, "{\"paid\":10}", "k-1");
		post("payments", MediaType.APPLICATION_JSON, "{\"paid\":20}", null);
		Answer retried = post("payments", MediaType.APPLICATION_JSON, "{\"paid\":10}", "k-1");
		assertThat(retried).isEqualTo(first);
		assertThat(last(topic)).isEqualTo("{\"paid\":20}");
		assertThat(post("payments", MediaType.APPLICATION_JSON, "{\"paid\":30}", "k-1").status()).isEqualTo(422);
	}

	@Test
	void aSnapshotTopicPublishesOnlyWhatChanged() {
		topic("board", PayloadType.SNAPSHOT);
		assertThat(post("board", MediaType.APPLICATION_JSON, "{\"a\":1}", null).response().changed()).isTrue();
		assertThat(post("board", MediaType.APPLICATION_JSON, "{\"a\":1}", null).response().changed()).isFalse();
		assertThat(post("board", MediaType.APPLICATION_JSON, "{\"a\":2}", null).response().changed()).isTrue();
	}

	@Test
	void badPublicationsAreRefusedWithTheirStatus() {
		topic("small", PayloadType.EVENT);
		assertThat(post("missing", MediaType.APPLICATION_JSON, "{}", null).status()).isEqualTo(404);
		assertThat(post("small", MediaType.APPLICATION_JSON, "{\"pad\":\"" + "x".repeat(2048) + "\"}", null).status())
			.isEqualTo(413);
		assertThat(post("small", MediaType.APPLICATION_JSON, "{\"unclosed\":", null).status()).isEqualTo(400);
		assertThat(post("small", MediaType.TEXT_PLAIN, "hello", null).status()).isEqualTo(415);
	}

	private record Answer(int status, PublishResponse response) {
	}

	/**
	 * A node of the publisher roles over the memory storage.
	 */
	@SpringBootConfiguration
	@EnableAutoConfiguration
	@ComponentScan({ "dev.streamgate.core", "dev.streamgate.storage.memory", "dev.streamgate.publish" })
	static class Node {

	}

}
