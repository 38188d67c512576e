package dev.streamgate.publish.poller;

import reactor.core.publisher.Mono;

import dev.streamgate.core.topic.Publisher;

/**
 * Where a poller fetches its topic's documents: over HTTP ({@link SourceClient}), or a
 * script in tests of the polling loop.
 */
interface Source {

	/**
	 * Fetches the source once, retries included.
	 * @param publisher the topic's publisher settings (URL, headers, retry)
	 * @param validators the validators of the last published answer, for a conditional
	 * request
	 * @return the answer, {@link SourceClient.Fetch#NOT_MODIFIED} when it did not change,
	 * or a {@link SourceFailure}
	 */
	Mono<SourceClient.Fetch> fetch(Publisher.HttpPoller publisher, SourceClient.Validators validators);

}
