package dev.streamgate.web;

import java.net.InetSocketAddress;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.netty.http.server.logging.AccessLog;

import dev.streamgate.core.web.StreamAccessLog;

/**
 * An access log ({@code streamgate.access-log.enabled=true}, logger
 * {@code reactor.netty.http.server.AccessLog}) in which tokens never appear: the values
 * of query and matrix parameters whose names speak of a credential ({@code access_token},
 * {@code token}, {@code api_key}, {@code secret}...) are masked, and so is anything
 * shaped like a JWT wherever a client put it. Cookies and the Authorization header are
 * not logged at all. Streams and WebSockets get their line when they end, with how long
 * they lasted and the bytes sent ({@link StreamAccessLog}).
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("streamgate.access-log.enabled")
public class AccessLogConfiguration {

	@Bean
	NettyServerCustomizer maskedAccessLog() {
		return (server) -> server.accessLog(true, (args) -> {
			String uri = String.valueOf(args.uri());
			int query = uri.indexOf('?');
			if (StreamAccessLog.isStream((query >= 0) ? uri.substring(0, query) : uri, status(args.status()))) {
				// Its line is written when it ends (StreamAccessLog).
				return null;
			}
			InetSocketAddress remote = (args.connectionInformation() != null)
					? (InetSocketAddress) args.connectionInformation().remoteAddress() : null;
			return AccessLog.create("{} - [{}] \"{} {} {}\" {} {} {} ms",
					(remote != null) ? remote.getHostString() : "-", args.accessDateTime(), args.method(),
					StreamAccessLog.mask(uri), args.protocol(), args.status(), args.contentLength(), args.duration());
		});
	}

	private static int status(CharSequence status) {
		try {
			return (status != null) ? Integer.parseInt(status.toString()) : 0;
		}
		catch (NumberFormatException ex) {
			return 0;
		}
	}

	@Bean
	StreamAccessLog streamAccessLog() {
		return new StreamAccessLog(true);
	}

}
