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
 * {@code reactor.netty.http.server.AccessLog}) in which tokens never appear: the values
 * of query and matrix parameters whose names speak of a credential ({@code access_token},
 * {@code token}, {@code api_key}, {@code secret}...) are masked, and so is anything
 * shaped like a JWT wherever a client put it. Cookies and the Authorization header are
 * not logged at all.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnBooleanProperty("streamgate.access-log.enabled")
public class AccessLogConfiguration {

	private static final Pattern CREDENTIAL_PARAMETER = Pattern
		.compile("(?i)([?&;][^=&;#/]*(token|key|secret|passw|auth|sig|jwt|credential|session)[^=&;#/]*=)[^&;#]*");

	private static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*");

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
		return JWT.matcher(CREDENTIAL_PARAMETER.matcher(uri).replaceAll("$1***")).replaceAll("***");
	}

}
