package dev.streamgate.subscribe.ws;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;

/**
 * Whether a connection negotiated permessage-deflate (RFC 7692): Reactor Netty's
 * handshake puts Netty's encoder of the extension in the connection's pipeline when the
 * client offered it and the gateway allows it ({@code streamgate.ws.compression}).
 */
final class PerMessageDeflate {

	/** Netty's encoder of the extension; the class itself is not public. */
	private static final String ENCODER = "PerMessageDeflateEncoder";

	private PerMessageDeflate() {
	}

	/**
	 * Whether a connection negotiated the extension.
	 * @param channel the connection, or {@code null} when it is not known
	 * @return whether Netty's encoder of the extension is in its pipeline
	 */
	static boolean negotiated(Channel channel) {
		return channel != null && channel.pipeline()
			.toMap()
			.values()
			.stream()
			.map(ChannelHandler::getClass)
			.anyMatch((type) -> ENCODER.equals(type.getSimpleName()));
	}

}
