package dev.streamgate.core.event;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The meters tagged with each topic's id, so that a deleted topic's meters are removed
 * without walking the registry: with 10,000 topics the registry holds some 40,000 meters,
 * and a walk of all of them for each deletion made deleting topics by the thousand cost
 * the square of their number.
 */
public final class TopicMeters {

	/** The tag that names a meter's topic. */
	public static final String TAG = "topic";

	private final MeterRegistry meters;

	private final ConcurrentMap<String, Set<Meter>> byTopic = new ConcurrentHashMap<>();

	/**
	 * Indexes the registry's meters, those there now and those added or removed later.
	 * @param meters the registry
	 */
	public TopicMeters(MeterRegistry meters) {
		this.meters = meters;
		meters.config().onMeterAdded(this::added).onMeterRemoved(this::removed);
		// After the listeners: a meter added meanwhile is indexed twice, into a set.
		meters.getMeters().forEach(this::added);
	}

	/**
	 * Removes every meter tagged with a topic's id.
	 * @param topicId the topic
	 */
	public void forget(String topicId) {
		Set<Meter> tagged = this.byTopic.remove(topicId);
		if (tagged != null) {
			tagged.forEach(this.meters::remove);
		}
	}

	/**
	 * How many meters are tagged with a topic's id.
	 * @param topicId the topic
	 * @return the count
	 */
	int count(String topicId) {
		Set<Meter> tagged = this.byTopic.get(topicId);
		return (tagged != null) ? tagged.size() : 0;
	}

	private void added(Meter meter) {
		String topicId = meter.getId().getTag(TAG);
		if (topicId != null) {
			this.byTopic.computeIfAbsent(topicId, (id) -> ConcurrentHashMap.newKeySet()).add(meter);
		}
	}

	private void removed(Meter meter) {
		String topicId = meter.getId().getTag(TAG);
		if (topicId != null) {
			this.byTopic.computeIfPresent(topicId, (id, tagged) -> {
				tagged.remove(meter);
				return tagged.isEmpty() ? null : tagged;
			});
		}
	}

}
