package dev.streamgate.core.support;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Runs asynchronous work one at a time per key, in the order it was asked for, without
 * blocking a thread while waiting.
 *
 * @param <K> the key type
 */
public final class SerialQueue<K> {

	private final ConcurrentHashMap<K, Mono<Void>> tails = new ConcurrentHashMap<>();

	/**
	 * Runs work after all earlier work of the same key has finished, successfully or not.
	 * @param <T> the result type
	 * @param key the key
	 * @param work the work, started when its turn comes
	 * @return the work's result
	 */
	public <T> Mono<T> run(K key, Supplier<Mono<T>> work) {
		return Mono.defer(() -> {
			Sinks.Empty<Void> done = Sinks.empty();
			Mono<Void> mine = done.asMono();
			Mono<Void>[] previous = new Mono[1];
			this.tails.compute(key, (k, tail) -> {
				previous[0] = (tail != null) ? tail : Mono.empty();
				return mine;
			});
			return previous[0].then(Mono.defer(work)).doFinally((signal) -> {
				this.tails.remove(key, mine);
				done.tryEmitEmpty();
			});
		});
	}

}
