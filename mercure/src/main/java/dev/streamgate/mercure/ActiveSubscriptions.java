package dev.streamgate.mercure;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import dev.streamgate.core.storage.Presence;

/**
 * Mercure's active subscriptions ({@code streamgate.mercure.subscriptions}): each
 * subscription a subscriber opens or closes is published as a private update of topic
 * {@code /.well-known/mercure/subscriptions/{topic}/{subscriber}}, and the subscriptions
 * API lists those of every node of the cluster.
 * <p>
 * A subscription is held in the cluster's {@link Presence} while its stream lasts. When
 * its node dies, a live node publishes its end in its stead.
 */
final class ActiveSubscriptions {

	private static final Log logger = LogFactory.getLog(ActiveSubscriptions.class);

	/** The JSON-LD context of the subscription documents. */
	static final String CONTEXT = "https://mercure.rocks/";

	/** The path of the subscriptions, and of the API that lists them. */
	static final String PATH = HubController.PATH + "/subscriptions";

	private static final JsonMapper MAPPER = JsonMapper.builder().build();

	private final Presence presence;

	private final MercureHub hub;

	ActiveSubscriptions(Presence presence, MercureHub hub) {
		this.presence = presence;
		this.hub = hub;
	}

	/**
	 * Announces the subscriptions of a subscriber whose stream opens.
	 * @param selectors the topic selectors it asked for
	 * @param payload the {@code payload} of its token's claim, or {@code null}
	 * @return the subscriber's subscriptions; {@link Opened#close()} ends them
	 */
	Opened open(List<TopicSelector> selectors, Object payload) {
		String subscriber = "urn:uuid:" + UUID.randomUUID();
		List<Subscription> subscriptions = new ArrayList<>(selectors.size());
		for (TopicSelector selector : selectors) {
			String topic = selector.selector();
			subscriptions.add(new Subscription(null, path(topic, subscriber), "Subscription", topic, subscriber, true,
					payload, null));
		}
		Mono<Void> announced = Flux.fromIterable(subscriptions)
			.concatMap((subscription) -> this.presence.hold(subscription.id(), subscription.json())
				.then(announce(subscription)))
			.then()
			.cache();
		announced.subscribe(null,
				(ex) -> logger.warn("A subscription of " + subscriber + " could not be announced: " + ex.getMessage()));
		return new Opened(subscriptions, announced);
	}

	/** Publishes a subscription's update: itself, active or not. */
	private Mono<Void> announce(Subscription subscription) {
		Subscription published = subscription.withContext(CONTEXT);
		return this.hub
			.publish(new Update(null, List.of(subscription.id()), new String(published.json(), StandardCharsets.UTF_8),
					true, null, null))
			.then();
	}

	/**
	 * The subscriptions of the whole cluster, with the id of the newest update before
	 * them: a subscriber to the subscriptions' updates resuming after it misses no
	 * change.
	 * @return the subscriptions and that id
	 */
	Mono<Listing> list() {
		return this.hub.lastEventId()
			.zipWith(this.presence.entries())
			.map((both) -> new Listing(both.getT1(),
					both.getT2()
						.stream()
						.map((entry) -> Subscription.parse(entry.value()))
						.filter(Objects::nonNull)
						.sorted(Comparator.comparing(Subscription::id))
						.toList()));
	}

	/**
	 * Publishes the end of the subscriptions of the nodes that die, as this node is given
	 * them.
	 * @return the settling, to dispose when the node stops
	 */
	Disposable settleOrphans() {
		return this.presence.orphans().concatMap((entry) -> {
			Subscription subscription = Subscription.parse(entry.value());
			if (subscription == null) {
				return Mono.empty();
			}
			return announce(subscription.ended()).onErrorResume((ex) -> {
				logger.warn("The end of subscription " + subscription.id() + " of a node gone (" + entry.node()
						+ ") could not be published: " + ex.getMessage());
				return Mono.empty();
			});
		}).subscribe();
	}

	/**
	 * The path of a subscription: the topic selector and the subscriber, each escaped as
	 * a query value.
	 */
	static String path(String topic, String subscriber) {
		return PATH + "/" + escape(topic) + "/" + escape(subscriber);
	}

	/** Escapes as Go's {@code url.QueryEscape}, as Mercure does. */
	static String escape(String text) {
		return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("*", "%2A").replace("%7E", "~");
	}

	/**
	 * A subscriber's subscriptions, announced.
	 */
	final class Opened {

		private final List<Subscription> subscriptions;

		private final Mono<Void> announced;

		private Opened(List<Subscription> subscriptions, Mono<Void> announced) {
			this.subscriptions = subscriptions;
			this.announced = announced;
		}

		/**
		 * Ends them, once their start is announced: released, and their end published.
		 */
		void close() {
			this.announced.onErrorResume((ex) -> Mono.empty())
				.thenMany(Flux.fromIterable(this.subscriptions))
				.concatMap((subscription) -> this.release(subscription))
				.subscribe(null,
						(ex) -> logger.warn("The end of a subscription could not be announced: " + ex.getMessage()));
		}

		private Mono<Void> release(Subscription subscription) {
			return ActiveSubscriptions.this.presence.release(subscription.id()).then(announce(subscription.ended()));
		}

	}

	/**
	 * The subscriptions of the cluster.
	 *
	 * @param lastEventId the id of the newest update
	 * @param subscriptions the subscriptions, by id
	 */
	record Listing(String lastEventId, List<Subscription> subscriptions) {
	}

	/**
	 * A subscription, as Mercure's JSON-LD describes it.
	 *
	 * @param context the JSON-LD context, on a document of its own
	 * @param id its path
	 * @param type {@code Subscription}
	 * @param topic the topic selector
	 * @param subscriber the subscriber's id
	 * @param active whether it is open
	 * @param payload the {@code payload} of the subscriber's token, or {@code null}
	 * @param lastEventId the id of the newest update, on a document of its own
	 */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	@JsonPropertyOrder({ "@context", "id", "type", "topic", "subscriber", "active", "payload", "lastEventID" })
	record Subscription(@JsonProperty("@context") String context, String id, String type, String topic,
			String subscriber, boolean active, Object payload, @JsonProperty("lastEventID") String lastEventId) {

		Subscription withContext(String context) {
			return new Subscription(context, this.id, this.type, this.topic, this.subscriber, this.active, this.payload,
					this.lastEventId);
		}

		Subscription withLastEventId(String lastEventId) {
			return new Subscription(this.context, this.id, this.type, this.topic, this.subscriber, this.active,
					this.payload, lastEventId);
		}

		Subscription ended() {
			return new Subscription(this.context, this.id, this.type, this.topic, this.subscriber, false, this.payload,
					this.lastEventId);
		}

		byte[] json() {
			return MAPPER.writeValueAsBytes(this);
		}

		static Subscription parse(byte[] json) {
			try {
				return MAPPER.readValue(json, Subscription.class);
			}
			catch (JacksonException ex) {
				return null;
			}
		}

	}

	/**
	 * The subscriptions API's collection.
	 *
	 * @param context the JSON-LD context
	 * @param id the collection's path
	 * @param type {@code Subscriptions}
	 * @param lastEventId the id of the newest update
	 * @param subscriptions the subscriptions
	 */
	@JsonPropertyOrder({ "@context", "id", "type", "lastEventID", "subscriptions" })
	record Collection(@JsonProperty("@context") String context, String id, String type,
			@JsonProperty("lastEventID") String lastEventId, List<Subscription> subscriptions) {
	}

}
