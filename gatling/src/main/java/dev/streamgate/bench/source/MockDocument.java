package dev.streamgate.bench.source;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * One document of the mock source API: its values, its versions, its injected fault and
 * the requests it saw.
 */
public final class MockDocument {

	/**
	 * Bytes one item takes in the JSON, roughly: {@code {"id":123,"value":123456789},}.
	 */
	private static final int ITEM_BYTES = 30;

	private static final int KEPT_VERSIONS = 256;

	/**
	 * At most this much of a document's history is kept (but at least 8 versions): 250
	 * documents of 50 KB changing twice a second filled the load generator's heap in four
	 * minutes with 256 versions each. At 2 MiB (40 versions, 20 s of sse-2's history) the
	 * versions outlived the load generator's young collections, which copied them, then
	 * promoted them: its young pauses of 100-200 ms were most of sse-2's p99 once the
	 * gateway's were 25-40 ms.
	 */
	private static final int KEPT_BYTES = 256 * 1024;

	private static final int KEPT_REQUESTS = 1024;

	private final long[] values;

	private final double change;

	private final SplittableRandom random = new SplittableRandom();

	private final Map<Long, String> versions = new LinkedHashMap<>() {
		@Override
		protected boolean removeEldestEntry(Map.Entry<Long, String> eldest) {
			return size() > MockDocument.this.keptVersions;
		}
	};

	private final int keptVersions;

	private final Deque<String> requests = new ArrayDeque<>();

	private final Disposable timer;

	private long version;

	private boolean changed = true;

	private Version served;

	private volatile String fault = "none";

	MockDocument(int size, double change, Duration changeEvery) {
		this.values = new long[Math.max(1, size / ITEM_BYTES)];
		this.keptVersions = Math.max(8, Math.min(KEPT_VERSIONS, KEPT_BYTES / Math.max(1, size)));
		for (int i = 0; i < this.values.length; i++) {
			this.values[i] = this.random.nextLong(1_000_000_000L);
		}
		this.change = change;
		this.timer = (changeEvery != null) ? Flux.interval(changeEvery, changeEvery).subscribe((tick) -> advance())
				: null;
	}

	/**
	 * The version to answer a request with: a new one per request, or the timer's current
	 * one. A version's {@code generatedAt} is the moment it was first served.
	 */
	synchronized Version serve() {
		if (this.timer == null && this.served != null) {
			mutate();
		}
		if (this.changed || this.served == null) {
			this.version++;
			String json = json(this.version, System.currentTimeMillis());
			this.served = new Version(this.version, json);
			this.versions.put(this.version, json);
			this.changed = false;
		}
		return this.served;
	}

	private synchronized void advance() {
		mutate();
	}

	private void mutate() {
		int count = (int) Math.round(this.values.length * this.change);
		for (int i = 0; i < count; i++) {
			this.values[this.random.nextInt(this.values.length)] = this.random.nextLong(1_000_000_000L);
		}
		this.changed = this.changed || count > 0;
	}

	private String json(long number, long generatedAt) {
		StringBuilder json = new StringBuilder(this.values.length * ITEM_BYTES + 64);
		json.append("{\"generatedAt\":")
			.append(generatedAt)
			.append(",\"version\":")
			.append(number)
			.append(",\"items\":[");
		for (int i = 0; i < this.values.length; i++) {
			if (i > 0) {
				json.append(',');
			}
			json.append("{\"id\":").append(i).append(",\"value\":").append(this.values[i]).append('}');
		}
		return json.append("]}").toString();
	}

	synchronized String version(long number) {
		return this.versions.get(number);
	}

	/**
	 * The fault this document answers with.
	 * @return {@code none} or a fault
	 */
	public String fault() {
		return this.fault;
	}

	/**
	 * Injects a fault, or clears it with {@code none}.
	 * @param fault the fault
	 */
	public void fault(String fault) {
		this.fault = fault;
	}

	synchronized void recordRequest(String userAgent) {
		this.requests.addLast(System.currentTimeMillis() + " " + userAgent);
		if (this.requests.size() > KEPT_REQUESTS) {
			this.requests.removeFirst();
		}
	}

	synchronized String requestsJson() {
		StringBuilder json = new StringBuilder("[");
		for (String request : this.requests) {
			int space = request.indexOf(' ');
			if (json.length() > 1) {
				json.append(',');
			}
			json.append("{\"at\":")
				.append(request, 0, space)
				.append(",\"userAgent\":\"")
				.append(request.substring(space + 1).replace("\\", "\\\\").replace("\"", "\\\""))
				.append("\"}");
		}
		return json.append(']').toString();
	}

	void close() {
		if (this.timer != null) {
			this.timer.dispose();
		}
	}

	/**
	 * One served version.
	 *
	 * @param number the version number
	 * @param json the document as served
	 */
	record Version(long number, String json) {
	}

}
