package dev.streamgate.core.topic;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import dev.streamgate.core.problem.StreamgateException.FieldError;

import static org.assertj.core.api.Assertions.assertThat;

class TopicValidatorTests {

	private static Topic event(String id) {
		return new Topic(id, null, null, null, null, null, null, null, null, null, null, null).withDefaults();
	}

	private static Topic poller(Duration period) {
		Publisher publisher = new Publisher.HttpPoller(URI.create("https://api.example.com/prices"), period, null, null,
				null, null, null, null);
		return new Topic("prices", null, PayloadType.SNAPSHOT, publisher, null, null, null, null, null, null, null,
				null)
			.withDefaults();
	}

	private static List<String> pointers(Topic topic) {
		return TopicValidator.validate(topic).stream().map(FieldError::pointer).toList();
	}

	@ParameterizedTest
	@ValueSource(strings = { "a", "prices", "orders.eu-west_1", "0",
			"abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0" })
	void validIdsPass(String id) {
		assertThat(TopicValidator.validate(event(id))).isEmpty();
	}

	@ParameterizedTest
	@ValueSource(strings = { "", "Prices", "-prices", ".prices", "pri ces", "prix€", "a/b",
			"abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz01" })
	void invalidIdsFail(String id) {
		assertThat(pointers(event(id))).contains("/id");
	}

	@Test
	void defaultsMakeAnEventTopicWithAnHttpPostPublisher() {
		Topic topic = event("orders");
		assertThat(topic.payloadType()).isEqualTo(PayloadType.EVENT);
		assertThat(topic.publisher()).isEqualTo(Publisher.HTTP_POST);
		assertThat(topic.subscriptionModes()).containsExactly(SubscriptionMode.EVENT);
		assertThat(topic.defaultSubscriptionMode()).isEqualTo(SubscriptionMode.EVENT);
		assertThat(topic.partitions()).isOne();
		assertThat(topic.retention()).isEqualTo(Duration.ofDays(7));
		assertThat(topic.isPublic()).isFalse();
		assertThat(topic.name()).isEqualTo("orders");
	}

	@Test
	void pollingPeriodMustBeBetweenHalfASecondAndAnHour() {
		assertThat(pointers(poller(Duration.ofMillis(500)))).isEmpty();
		assertThat(pointers(poller(Duration.ofHours(1)))).isEmpty();
		assertThat(pointers(poller(Duration.ofMillis(499)))).containsExactly("/publisher/pollingPeriod");
		assertThat(pointers(poller(Duration.ofHours(1).plusMillis(1)))).containsExactly("/publisher/pollingPeriod");
	}

	@Test
	void pollerNeedsAnAbsoluteHttpUrl() {
		Publisher noUrl = new Publisher.HttpPoller(null, null, null, null, null, null, null, null);
		Publisher ftp = new Publisher.HttpPoller(URI.create("ftp://example.com/x"), null, null, null, null, null, null,
				null);
		assertThat(pointers(event("a").withPublisher(noUrl))).containsExactly("/publisher/url");
		assertThat(pointers(event("a").withPublisher(ftp))).containsExactly("/publisher/url");
	}

	@ParameterizedTest
	@ValueSource(strings = { "http://127.0.0.1%2f@x:19001/", "http://user:secret@example.com/x",
			"http://example.com/x#part" })
	void pollerUrlsAreReadTheWayWebhookUrlsAreCredentialsAndFragmentsRefused(String url) {
		Publisher poller = new Publisher.HttpPoller(URI.create(url), null, null, null, null, null, null, null);
		assertThat(pointers(event("a").withPublisher(poller))).containsExactly("/publisher/url");
	}

	@Test
	void headerNamesAndPointersAreChecked() {
		Publisher publisher = new Publisher.HttpPoller(URI.create("https://example.com"), null,
				Map.of("Bad Header", "x", "X-Ok", "a\r\nInjected: 1"), "data", null, null, null, null);
		assertThat(pointers(event("a").withPublisher(publisher))).containsExactlyInAnyOrder(
				"/publisher/headers/Bad Header", "/publisher/headers/X-Ok", "/publisher/payloadPointer");
	}

	@Test
	void retryBoundsAreChecked() {
		Publisher publisher = new Publisher.HttpPoller(URI.create("https://example.com"), null, null, null, null,
				new Publisher.Retry(List.of(200), 0, Duration.ofSeconds(10), Duration.ofSeconds(1)), null, null);
		assertThat(pointers(event("a").withPublisher(publisher))).containsExactlyInAnyOrder("/publisher/retry/onStatus",
				"/publisher/retry/maxAttempts", "/publisher/retry/maxBackoff");
	}

	@Test
	void modesMustSuitThePayloadType() {
		Topic topic = new Topic("a", null, PayloadType.SNAPSHOT, null, List.of(SubscriptionMode.EVENT), null, null,
				null, null, null, null, null)
			.withDefaults();
		assertThat(pointers(topic)).containsExactly("/subscriptionModes");
	}

	@Test
	void defaultModeMustBeOneOfTheModes() {
		Topic topic = new Topic("a", null, PayloadType.SNAPSHOT, null, List.of(SubscriptionMode.SNAPSHOT_ONLY),
				SubscriptionMode.SNAPSHOT_PATCH, null, null, null, null, null, null)
			.withDefaults();
		assertThat(pointers(topic)).containsExactly("/defaultSubscriptionMode");
	}

	@Test
	void emptyOrRepeatedModesFail() {
		Topic empty = new Topic("a", null, null, null, List.of(), null, null, null, null, null, null, null)
			.withDefaults();
		Topic repeated = new Topic("a", null, null, null, List.of(SubscriptionMode.EVENT, SubscriptionMode.EVENT), null,
				null, null, null, null, null, null)
			.withDefaults();
		assertThat(pointers(empty)).containsExactly("/subscriptionModes");
		assertThat(pointers(repeated)).containsExactly("/subscriptionModes");
	}

	@Test
	void snapshotTopicsHaveOnePartition() {
		Topic topic = new Topic("a", null, PayloadType.SNAPSHOT, null, null, null, 2, null, null, null, null, null)
			.withDefaults();
		assertThat(pointers(topic)).containsExactly("/partitions");
		Topic events = new Topic("a", null, PayloadType.EVENT, null, null, null, 12, null, null, null, null, null)
			.withDefaults();
		assertThat(pointers(events)).isEmpty();
	}

	@Test
	void retentionMustBeBetweenAMinuteAndTenYears() {
		Topic short_ = new Topic("a", null, null, null, null, null, null, Duration.ofSeconds(59), null, null, null,
				null)
			.withDefaults();
		Topic negative = new Topic("a", null, null, null, null, null, null, Duration.ofDays(-1), null, null, null, null)
			.withDefaults();
		assertThat(pointers(short_)).containsExactly("/retention");
		assertThat(pointers(negative)).containsExactly("/retention");
	}

}
