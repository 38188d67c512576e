package dev.streamgate.web;

import java.net.InetSocketAddress;
import java.util.regex.Pattern;

import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import reactor.netty.http.server.logging.AccessLog;

/**
 * An access log ({@code streamgate.access-log.enabled=true}, logger
 * {@code reactor.netty.http.server.AccessLog}) in which tokens never appear: the
 * {@code access_token} query parameter of streams is masked. Cookies and the
 * Authorization header are not logged at all.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("streamgate.access-log.enabled")
public class AccessLogConfiguration {

	private static final Pattern TOKEN = Pattern.compile("(?i)([?&]access_token=)[^&#]*");

	@Bean
	NettyServerCustomizer maskedAccessLog() {
		return (server) -> server.accessLog(true, (args) -> {
			InetSocketAddress remote = (args.connectionInformation() != null)
					? (InetSocketAddress) args.connectionInformation().remoteAddress() : null;
			return AccessLog.create("{} - [{}] \"{} {} {}\" {} {} {} ms",
					(remote != null) ? remote.getHostString() : "-", args.accessDateTime(), args.method(),
					mask(String.valueOf(args.uri())), args.protocol(), args.status(), args.contentLength(),
					args.duration());
		});
	}

	static String mask(String uri) {
		return TOKEN.matcher(uri).replaceAll("$1***");
	}

}
