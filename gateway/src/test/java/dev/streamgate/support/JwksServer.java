package dev.streamgate.support;

import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A JWK Set served on this machine, as an identity provider serves its keys.
 */
public final class JwksServer implements AutoCloseable {

	private final DisposableServer server;

	private JwksServer(DisposableServer server) {
		this.server = server;
	}

	/**
	 * Serves the public part of a key at {@code /jwks.json}.
	 * @param key the key
	 * @return the running server
	 */
	public static JwksServer serving(RSAKey key) {
		String jwks = new JWKSet(key.toPublicJWK()).toString();
		return new JwksServer(HttpServer.create()
			.host("127.0.0.1")
			.port(0)
			.route((routes) -> routes.get("/jwks.json",
					(request, response) -> response.header("Content-Type", "application/json")
						.sendString(Mono.just(jwks))))
			.bindNow());
	}

	/**
	 * The JWK Set's URL.
	 * @return the URL
	 */
	public String uri() {
		return "http://127.0.0.1:" + this.server.port() + "/jwks.json";
	}

	@Override
	public void close() {
		this.server.disposeNow();
	}

}
