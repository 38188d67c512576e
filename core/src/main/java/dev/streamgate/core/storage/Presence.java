package dev.streamgate.core.storage;

import java.util.List;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What the nodes hold for as long as they live, seen by every node: the Mercure hub's
 * active subscriptions, which its subscriptions API lists for the whole cluster.
 * <p>
 * An entry belongs to the node that holds it. It goes when the node releases it, when the
 * node stops, or, when the node dies, once the others have missed its beats for a while:
 * then one live node is given the dead node's entries to settle ({@link #orphans()}).
 */
public interface Presence {

	/**
	 * Holds an entry until this node releases it or ends.
	 * @param key the entry's key, unique on this node
	 * @param value its value
	 * @return completes once stored
	 */
	Mono<Void> hold(String key, byte[] value);

	/**
	 * Releases an entry this node holds.
	 * @param key its key
	 * @return completes once stored
	 */
	Mono<Void> release(String key);

	/**
	 * The entries of every live node, once this node has read them all.
	 * @return the entries, in no particular order
	 */
	Mono<List<Entry>> entries();

	/**
	 * The entries of nodes that died, each given to one live node, which settles them:
	 * they are gone from {@link #entries()} once given.
	 * @return the orphaned entries, as nodes are found dead
	 */
	Flux<Entry> orphans();

	/**
	 * An entry.
	 *
	 * @param node the node that holds it
	 * @param key its key
	 * @param value its value
	 */
	record Entry(String node, String key, byte[] value) {
	}

}
