package dev.streamgate.core.storage;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.webhook.Webhook;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every store of webhook registrations promises, over Kafka and in memory alike.
 */
public abstract class WebhookStoreContract {

	protected static final Duration TIMEOUT = Duration.ofSeconds(15);

	/** The store under test, started and caught up. */
	protected abstract WebhookStore store();

	private static Webhook webhook(String id, String topicId, String url) {
		return new Webhook(id, topicId, new Webhook.HttpTarget(url, null), SubscriptionMode.EVENT, Map.of(),
				"whsec_test", null, Webhook.Status.ACTIVE, null, 0, "-1", false, Instant.EPOCH, Instant.EPOCH, null,
				null, null, null);
	}

	@Test
	void aSavedRegistrationIsReadableOnceTheSaveCompletesAndTheLatestWins() {
		WebhookStore store = store();
		store.save(webhook("wh_1", "orders", "http://127.0.0.1:9/first")).block(TIMEOUT);
		assertThat(store.get("wh_1"))
			.hasValueSatisfying((read) -> assertThat(((Webhook.HttpTarget) read.target()).url()).endsWith("/first"));

		store.save(webhook("wh_1", "orders", "http://127.0.0.1:9/second")).block(TIMEOUT);
		assertThat(store.get("wh_1"))
			.hasValueSatisfying((read) -> assertThat(((Webhook.HttpTarget) read.target()).url()).endsWith("/second"));
	}

	@Test
	void registrationsAreListedByTopicAndADeletedOneIsGone() {
		WebhookStore store = store();
		store.save(webhook("wh_a", "orders", "http://127.0.0.1:9/a")).block(TIMEOUT);
		store.save(webhook("wh_b", "orders", "http://127.0.0.1:9/b")).block(TIMEOUT);
		store.save(webhook("wh_c", "prices", "http://127.0.0.1:9/c")).block(TIMEOUT);
		store.delete("wh_b").block(TIMEOUT);

		assertThat(store.get("wh_b")).isEmpty();
		assertThat(store.list("orders")).extracting(Webhook::id).containsExactly("wh_a");
		assertThat(store.list()).extracting(Webhook::id).containsExactlyInAnyOrder("wh_a", "wh_c");
	}

	@Test
	void changesNameEachRegistrationSavedOrDeleted() {
		WebhookStore store = store();
		CompletableFuture<List<String>> changes = store.changes().take(2).collectList().toFuture();
		store.save(webhook("wh_x", "orders", "http://127.0.0.1:9/x")).then(store.delete("wh_x")).block(TIMEOUT);

		assertThat(changes.join()).containsExactly("wh_x", "wh_x");
	}

}
