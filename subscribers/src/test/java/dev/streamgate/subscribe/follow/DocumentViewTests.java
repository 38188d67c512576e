package dev.streamgate.subscribe.follow;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;

import jakarta.json.JsonArray;
import jakarta.json.JsonObject;
import jakarta.json.JsonStructure;
import jakarta.json.JsonValue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.util.unit.DataSize;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import dev.streamgate.core.event.EventPublisher;
import dev.streamgate.core.event.EventType;
import dev.streamgate.core.event.MemoryBudget;
import dev.streamgate.core.event.SnapshotDocuments;
import dev.streamgate.core.filter.Selection;
import dev.streamgate.core.patch.DocumentView;
import dev.streamgate.core.patch.JsonPatches;
import dev.streamgate.core.topic.PayloadType;
import dev.streamgate.core.topic.SubscriptionMode;
import dev.streamgate.core.topic.Topic;
import dev.streamgate.storage.memory.MemoryEventLog;
import dev.streamgate.storage.memory.MemorySnapshotStore;
import dev.streamgate.support.RandomDocuments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Views of random documents that evolve by random edits: for pointers at every depth of
 * the first document (and some that never or only sometimes have a value), a view's
 * subscriber rebuilds, from its first snapshot and the patches it receives, exactly the
 * part of every published version at the pointer; it receives nothing for a version that
 * left its part as it was; a snapshot-only subscriber of the view receives the part whole
 * each time it changed.
 */
class DocumentViewTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@ParameterizedTest
	@ValueSource(longs = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20 })
	void aViewsPatchesRebuildThePartOfEveryVersionExactly(long seed) {
		Topic topic = new Topic("doc-" + seed, null, PayloadType.SNAPSHOT, null, null, null, null, null, null, null,
				null, null)
			.withDefaults();
		MemoryEventLog log = new MemoryEventLog(Clock.systemUTC());
		MemorySnapshotStore snapshots = new MemorySnapshotStore();
		SnapshotDocuments documents = new SnapshotDocuments(log, snapshots);
		EventPublisher publisher = new EventPublisher(log, snapshots, documents, 5, Duration.ofSeconds(30));
		RandomDocuments random = new RandomDocuments(seed);
		List<JsonStructure> published = new ArrayList<>(List.of(random.document(seed % 5 == 0)));
		while (published.size() < 31) {
			published.add(random.mutate(published.get(published.size() - 1)));
		}
		JsonStructure first = published.get(0);
		publisher.publishDocument(topic, first).block(TIMEOUT);
		TopicFollower follower = new TopicFollower(topic, log, documents,
				new FollowProperties(100, DataSize.ofMegabytes(1), Duration.ofSeconds(30)), new MemoryBudget(1 << 24),
				(channel) -> {
				});
		follower.start(log);
		List<String> pointers = pointers(published, new Random(seed));
		Map<String, List<Followed>> patched = new HashMap<>();
		Map<String, List<Followed>> whole = new HashMap<>();
		List<Disposable> open = new ArrayList<>();
		for (String pointer : pointers) {
			patched.put(pointer, new CopyOnWriteArrayList<>());
			whole.put(pointer, new CopyOnWriteArrayList<>());
			open.add(open(follower, pointer, SubscriptionMode.SNAPSHOT_PATCH).subscribe(patched.get(pointer)::add));
			open.add(open(follower, pointer, SubscriptionMode.SNAPSHOT_ONLY).subscribe(whole.get(pointer)::add));
		}
		// Every version by the offset of the event that made it.
		Map<Long, JsonStructure> versions = new HashMap<>();
		JsonStructure version = first;
		for (JsonStructure next : published.subList(1, published.size())) {
			EventPublisher.Publication publication = publisher.publishDocument(topic, next).block(TIMEOUT);
			if (publication.changed()) {
				versions.put(publication.positions().get(publication.positions().size() - 1).offset(), next);
			}
			version = next;
		}
		JsonStructure last = version;
		int patches = 0;
		for (String pointer : pointers) {
			DocumentView view = DocumentView.of(pointer, "pointer");
			long changes = versions.keySet()
				.stream()
				.sorted()
				.map((offset) -> view.select(versions.get(offset)))
				.reduce(new ArrayList<JsonValue>(List.of(view.select(first))), (seen, part) -> {
					if (!seen.get(seen.size() - 1).equals(part)) {
						seen.add(part);
					}
					return seen;
				}, (a, b) -> a)
				.size();
			await().atMost(TIMEOUT)
				.pollInterval(Duration.ofMillis(5))
				.until(() -> patched.get(pointer).size() == changes);
			List<Followed> received = patched.get(pointer);
			assertThat(received.get(0).type()).isEqualTo(EventType.SNAPSHOT);
			JsonValue rebuilt = read(received.get(0));
			assertThat(rebuilt).as("seed %d %s first", seed, pointer).isEqualTo(view.select(first));
			for (Followed followed : received.subList(1, received.size())) {
				assertThat(followed.type()).isEqualTo(EventType.PATCH);
				patches++;
				rebuilt = apply(rebuilt, (JsonArray) read(followed));
				JsonStructure at = versions.get(followed.after().last(0));
				assertThat(rebuilt).as("seed %d %s at %s", seed, pointer, followed.id()).isEqualTo(view.select(at));
			}
			assertThat(rebuilt).as("seed %d %s last", seed, pointer).isEqualTo(view.select(last));
			await().atMost(TIMEOUT)
				.pollInterval(Duration.ofMillis(5))
				.until(() -> whole.get(pointer).size() == changes);
			for (int i = 0; i < changes; i++) {
				assertThat(whole.get(pointer).get(i).type()).isEqualTo(EventType.SNAPSHOT);
			}
			assertThat(read(whole.get(pointer).get((int) changes - 1))).isEqualTo(view.select(last));
		}
		// Some parts changed (and some did not: the views sent fewer messages than
		// versions).
		assertThat(patches).as("patches checked").isPositive();
		open.forEach(Disposable::dispose);
		follower.close();
	}

	private static Flux<Followed> open(TopicFollower follower, String pointer, SubscriptionMode mode) {
		Selection view = Selection.ALL.withView(DocumentView.of(pointer, "pointer"));
		return follower.open("test", Buffers.events(1000), mode, view, Resume.LIVE, Runnable::run)
			.block(TIMEOUT)
			.filter((followed) -> !followed.isHeartbeat());
	}

	/**
	 * Pointers to parts of the versions at every depth: four whose part changes from one
	 * version to another, four chosen at random (parts that appear, vanish or stay as
	 * they are), one that never has a value, and one under an array index that edits may
	 * remove.
	 */
	private static List<String> pointers(List<JsonStructure> versions, Random random) {
		List<String> all = new ArrayList<>();
		versions.forEach((version) -> collect(version, "", all));
		List<String> distinct = new ArrayList<>(all.stream().distinct().sorted().toList());
		List<String> chosen = new ArrayList<>();
		List<String> changing = new ArrayList<>(distinct.stream().filter((pointer) -> {
			DocumentView view = DocumentView.of(pointer, "pointer");
			return versions.stream().map(view::select).distinct().count() > 1;
		}).toList());
		for (int i = 0; i < 4 && !changing.isEmpty(); i++) {
			chosen.add(changing.remove(random.nextInt(changing.size())));
		}
		for (int i = 0; i < 4 && !distinct.isEmpty(); i++) {
			chosen.add(distinct.remove(random.nextInt(distinct.size())));
		}
		chosen.add("/never/there");
		chosen.add("/3");
		return chosen.stream().distinct().toList();
	}

	private static void collect(JsonValue value, String at, List<String> pointers) {
		if (value instanceof JsonObject object) {
			object.forEach((key, member) -> {
				String pointer = at + "/" + key.replace("~", "~0").replace("/", "~1");
				pointers.add(pointer);
				collect(member, pointer, pointers);
			});
		}
		else if (value instanceof JsonArray array) {
			for (int i = 0; i < array.size(); i++) {
				pointers.add(at + "/" + i);
				collect(array.get(i), at + "/" + i, pointers);
			}
		}
	}

	private static JsonValue read(Followed followed) {
		return JsonPatches.read(followed.data());
	}

	/**
	 * Applies a patch to a part, which may be no structure (then it is replaced whole).
	 */
	private static JsonValue apply(JsonValue part, JsonArray patch) {
		if (patch.size() == 1 && patch.getJsonObject(0).getString("path").isEmpty()) {
			assertThat(patch.getJsonObject(0).getString("op")).isEqualTo("replace");
			return patch.getJsonObject(0).get("value");
		}
		return JsonPatches.apply((JsonStructure) part, patch);
	}

}
