package dev.streamgate.mercure;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.streamgate.mercure.ActiveSubscriptions.Subscription;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The subscriptions' paths and documents, as Mercure writes them.
 */
class ActiveSubscriptionsTests {

	@Test
	void aPathEscapesTheSelectorAndTheSubscriberAsQueryValuesAsGoDoes() {
		// Go's url.QueryEscape: unreserved characters stay, a space is +, the rest %XX.
		assertThat(ActiveSubscriptions.path("https://example.com/books/{id}", "urn:uuid:1")).isEqualTo(
				"/.well-known/mercure/subscriptions/https%3A%2F%2Fexample.com%2Fbooks%2F%7Bid%7D/urn%3Auuid%3A1");
		assertThat(ActiveSubscriptions.escape("a b*~-_.")).isEqualTo("a+b%2A~-_.");
	}

	@Test
	void aSubscriptionIsJsonLdWithItsContextOnlyWhenItStandsAlone() {
		Subscription subscription = new Subscription(null, "/p", "Subscription", "*", "urn:uuid:1", true,
				Map.of("user", "ann"), null);
		assertThat(new String(subscription.json(), StandardCharsets.UTF_8)).isEqualTo(
				"{\"id\":\"/p\",\"type\":\"Subscription\",\"topic\":\"*\",\"subscriber\":\"urn:uuid:1\",\"active\":true,\"payload\":{\"user\":\"ann\"}}");
		assertThat(new String(subscription.withContext(ActiveSubscriptions.CONTEXT).ended().json(),
				StandardCharsets.UTF_8))
			.startsWith("{\"@context\":\"https://mercure.rocks/\",\"id\":\"/p\"")
			.contains("\"active\":false");
		assertThat(Subscription.parse(subscription.json())).isEqualTo(subscription);
	}

}
