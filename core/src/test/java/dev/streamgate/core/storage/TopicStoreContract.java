package dev.streamgate.core.storage;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import dev.streamgate.core.problem.StreamgateException;
import dev.streamgate.core.storage.TopicStore.TopicChange;
import dev.streamgate.core.topic.StoredTopic;
import dev.streamgate.core.topic.Topic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.tuple;

/**
 * What every store of topic definitions promises, over Kafka and in memory alike.
 */
public abstract class TopicStoreContract {

	protected static final Duration TIMEOUT = Duration.ofSeconds(10);

	/** The store under test, started and caught up. */
	protected abstract TopicStore store();

	protected static Topic topic(String id, String name) {
		return new Topic(id, name, null, null, null, null, null, null, null, null, null, null).withDefaults();
	}

	@Test
	void aSavedTopicIsReadableOnceTheSaveCompletesAndEachSaveIsANewRevision() {
		TopicStore store = store();
		StoredTopic first = store.save(topic("a", "first")).block(TIMEOUT);
		assertThat(store.get("a")).contains(first);

		StoredTopic second = store.save(topic("a", "second")).block(TIMEOUT);
		assertThat(second.revision()).isGreaterThan(first.revision());
		assertThat(store.require("a").topic().name()).isEqualTo("second");
	}

	@Test
	void aDeletedTopicIsGoneFromGetAndList() {
		TopicStore store = store();
		store.save(topic("kept", "kept")).block(TIMEOUT);
		store.save(topic("gone", "gone")).block(TIMEOUT);
		store.delete("gone").block(TIMEOUT);

		assertThat(store.get("gone")).isEmpty();
		assertThat(store.list()).extracting(StoredTopic::id).containsExactly("kept");
		assertThatExceptionOfType(StreamgateException.class).isThrownBy(() -> store.require("gone"))
			.withMessageContaining("gone");
	}

	@Test
	void changesAreAnnouncedAsTheyAreApplied() {
		TopicStore store = store();
		CompletableFuture<List<TopicChange>> changes = store.changes().take(2).collectList().toFuture();
		store.save(topic("c", "c")).then(store.delete("c")).block(TIMEOUT);

		assertThat(changes.join()).extracting(TopicChange::id, TopicChange::isDeletion)
			.containsExactly(tuple("c", false), tuple("c", true));
	}

}
