package dev.streamgate.core.storage;

import java.time.Duration;

import jakarta.json.Json;
import org.junit.jupiter.api.Test;

import dev.streamgate.core.storage.SnapshotStore.Checkpoint;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What every store of snapshot checkpoints promises, over Kafka and in memory alike.
 */
public abstract class SnapshotStoreContract {

	protected static final Duration TIMEOUT = Duration.ofSeconds(15);

	/** The store under test, started. */
	protected abstract SnapshotStore store();

	private static Checkpoint checkpoint(long offset, int value) {
		return new Checkpoint(offset, Json.createObjectBuilder().add("a", value).build(), "i1");
	}

	@Test
	void aSavedCheckpointIsReadWithItsOffsetDocumentAndIncarnation() {
		SnapshotStore store = store();
		store.save("doc", checkpoint(41, 1)).block(TIMEOUT);

		await().atMost(TIMEOUT).until(() -> store.has("doc"));
		Checkpoint read = store.get("doc").orElseThrow();
		assertThat(read.offset()).isEqualTo(41);
		assertThat(read.document()).isEqualTo(Json.createObjectBuilder().add("a", 1).build());
		assertThat(read.incarnation()).isEqualTo("i1");
	}

	@Test
	void aLaterCheckpointReplacesTheEarlierOne() {
		SnapshotStore store = store();
		store.save("doc", checkpoint(41, 1)).block(TIMEOUT);
		store.save("doc", checkpoint(42, 2)).block(TIMEOUT);

		await().atMost(TIMEOUT).until(() -> store.get("doc").map(Checkpoint::offset).orElse(-1L) == 42);
		assertThat(store.get("doc").orElseThrow().document()).isEqualTo(Json.createObjectBuilder().add("a", 2).build());
	}

	@Test
	void aDeletedTopicHasNoCheckpointAndOthersKeepTheirs() {
		SnapshotStore store = store();
		store.save("gone", checkpoint(1, 1)).block(TIMEOUT);
		store.save("kept", checkpoint(2, 2)).block(TIMEOUT);
		store.delete("gone").block(TIMEOUT);

		await().atMost(TIMEOUT).until(() -> !store.has("gone") && store.has("kept"));
		assertThat(store.get("kept").orElseThrow().offset()).isEqualTo(2);
	}

}
