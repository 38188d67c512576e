package dev.streamgate.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.core.ConditionTimeoutException;

import dev.streamgate.bench.sink.WebhookSink;
import dev.streamgate.bench.sink.WebhookSink.Received;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The account a fault scenario ends with, by event number: what publishers were told
 * against what each subscriber and each webhook received.
 */
final class Accounts {

	/** The publisher's number inside the envelope's {@code data}. */
	private static final Pattern SEQ = Pattern.compile("\"data\":\\{\"seq\":(\\d+)\\}");

	private Accounts() {
	}

	/**
	 * Whether the suite runs at full length ({@code -Pfaults}) or in its short CI form.
	 */
	static boolean full() {
		return Boolean.getBoolean("faults.full");
	}

	/**
	 * Waits until the subscriber has every acknowledged event, then checks it received
	 * each exactly once, in order, and nothing that was never published.
	 * @return how many events it received that had no 202 (their publisher got no answer,
	 * or a 503 after the write had reached Kafka)
	 */
	static int assertExactlyOnce(String name, ResumingSubscriber subscriber, SteadyPublisher publisher) {
		Set<Integer> acknowledged = publisher.acknowledged();
		try {
			await(name + " has every acknowledged event").atMost(Duration.ofSeconds(90))
				.pollInterval(Duration.ofMillis(500))
				.until(() -> subscriber.distinct().containsAll(acknowledged));
		}
		catch (ConditionTimeoutException ex) {
			Set<Integer> missing = new TreeSet<>(acknowledged);
			missing.removeAll(subscriber.distinct());
			throw new AssertionError(name + " misses " + missing.size() + " acknowledged events " + missing
					+ "; it got " + subscriber.sequence().size() + " events over " + subscriber.connections()
					+ " connections, types " + subscriber.eventTypes() + ", errors " + subscriber.errors(), ex);
		}
		List<Integer> sequence = subscriber.sequence();
		assertThat(sequence).as("%s: no event twice", name).doesNotHaveDuplicates();
		assertThat(sequence).as("%s: in publication order", name).isSorted();
		Set<Integer> extra = new HashSet<>(sequence);
		extra.removeAll(acknowledged);
		Set<Integer> possible = new HashSet<>(publisher.unanswered());
		possible.addAll(publisher.refused());
		assertThat(possible).as("%s: nothing that was not published", name).containsAll(extra);
		return extra.size();
	}

	/**
	 * Waits until the endpoint has every acknowledged event, then checks each first
	 * arrived in order, signed, and that a duplicate carries the first one's webhook-id.
	 * @return the number of duplicate deliveries
	 */
	static int assertAtLeastOnceInOrder(WebhookSink sink, String endpoint, SteadyPublisher publisher) {
		Set<Integer> acknowledged = publisher.acknowledged();
		try {
			await(endpoint + " has every acknowledged event").atMost(Duration.ofSeconds(90))
				.pollInterval(Duration.ofMillis(500))
				.until(() -> numbers(accepted(sink, endpoint)).containsAll(acknowledged));
		}
		catch (ConditionTimeoutException ex) {
			Set<Integer> missing = new TreeSet<>(acknowledged);
			missing.removeAll(numbers(accepted(sink, endpoint)));
			throw new AssertionError(endpoint + " misses " + missing.size() + " acknowledged events " + missing
					+ "; it accepted " + accepted(sink, endpoint).size() + " deliveries of "
					+ sink.endpoint(endpoint).received().size(), ex);
		}
		List<Received> received = accepted(sink, endpoint);
		assertThat(received).allSatisfy((r) -> assertThat(r.signatureValid()).isTrue());
		List<Integer> numbers = numbers(received);
		List<Integer> firstArrivals = new ArrayList<>(new LinkedHashSet<>(numbers));
		assertThat(firstArrivals).as("%s: first arrivals in order", endpoint).isSorted();
		Map<Integer, Set<String>> ids = new HashMap<>();
		for (int i = 0; i < received.size(); i++) {
			ids.computeIfAbsent(numbers.get(i), (seq) -> new HashSet<>()).add(received.get(i).webhookId());
		}
		assertThat(ids).as("%s: one webhook-id per event", endpoint)
			.allSatisfy((seq, set) -> assertThat(set).hasSize(1));
		return received.size() - firstArrivals.size();
	}

	private static List<Received> accepted(WebhookSink sink, String endpoint) {
		return sink.endpoint(endpoint)
			.received()
			.stream()
			.filter(Received::accepted)
			.filter((r) -> "event".equals(r.type()))
			.toList();
	}

	private static List<Integer> numbers(List<Received> received) {
		return received.stream().map(Accounts::seq).toList();
	}

	private static int seq(Received received) {
		Matcher seq = SEQ.matcher(received.body());
		if (!seq.find()) {
			throw new AssertionError("no seq in " + received.body());
		}
		return Integer.parseInt(seq.group(1));
	}

}
