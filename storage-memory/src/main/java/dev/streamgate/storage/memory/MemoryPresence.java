package dev.streamgate.storage.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.streamgate.core.storage.Presence;

/**
 * The entries of the one node there is: nothing outlives it, so nothing is orphaned.
 */
public final class MemoryPresence implements Presence {

	private static final String NODE = "memory";

	private final Map<String, byte[]> entries = new ConcurrentHashMap<>();

	@Override
	public Mono<Void> hold(String key, byte[] value) {
		return Mono.fromRunnable(() -> this.entries.put(key, value.clone()));
	}

	@Override
	public Mono<Void> release(String key) {
		return Mono.fromRunnable(() -> this.entries.remove(key));
	}

	@Override
	public Mono<List<Entry>> entries() {
		return Mono.fromSupplier(() -> {
			List<Entry> all = new ArrayList<>(this.entries.size());
			this.entries.forEach((key, value) -> all.add(new Entry(NODE, key, value)));
			return all;
		});
	}

	@Override
	public Flux<Entry> orphans() {
		return Flux.never();
	}

}
