package dev.streamgate.subscribe.follow;

/**
 * Connection buffers for tests of other things than their byte bounds.
 */
final class Buffers {

	private Buffers() {
	}

	/**
	 * A connection's buffer bounded in events only.
	 * @param maxEvents the events a topic's queue holds
	 * @return the buffer
	 */
	static ClientBuffer events(int maxEvents) {
		return new ClientBuffers(Long.MAX_VALUE, Long.MAX_VALUE).open(maxEvents, () -> 0);
	}

}
