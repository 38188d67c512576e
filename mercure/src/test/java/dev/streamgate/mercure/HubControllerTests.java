package dev.streamgate.mercure;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.problem.StreamgateException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * What the hub's endpoint reads from requests: forms, and the topics that are its own.
 */
class HubControllerTests {

	@Test
	void aFormKeepsRepeatedFieldsInOrderAndDecodesThem() {
		Map<String, List<String>> form = HubController
			.form("topic=https%3A%2F%2Fexample.com%2Fa&topic=urn%3Ab&data=a+b%0Ac&private&id=");
		assertThat(form).containsEntry("topic", List.of("https://example.com/a", "urn:b"))
			.containsEntry("data", List.of("a b\nc"))
			.containsEntry("private", List.of(""))
			.containsEntry("id", List.of(""));
		assertThat(HubController.form("")).isEmpty();
	}

	@Test
	void aMalformedFormIsABadRequest() {
		assertThatExceptionOfType(StreamgateException.class).isThrownBy(() -> HubController.form("data=%zz"))
			.satisfies((ex) -> assertThat(ex.getStatusCode().value()).isEqualTo(400));
	}

	@Test
	void theSubscriptionTopicsAreTheHubsOwnWhateverTheirOrigin() {
		assertThat(HubController.isReserved("/.well-known/mercure/subscriptions/a/b")).isTrue();
		assertThat(HubController.isReserved("https://hub.example/.well-known/mercure/subscriptions/a/b")).isTrue();
		assertThat(HubController.isReserved("/.well-known/mercure/subscriptions")).isTrue();
		assertThat(HubController.isReserved("https://example.com/.well-known/mercure/subscriptionsx")).isFalse();
		assertThat(HubController.isReserved("https://example.com/books/1")).isFalse();
		assertThat(HubController.isReserved("not a uri {x}")).isFalse();
	}

}
