package dev.streamgate.security;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Map;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;

import dev.streamgate.support.JwksServer;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;

/**
 * Tokens verified against a JWKS (here RS256 keys served by a local JWKS endpoint)
 * instead of a shared secret.
 */
class JwksIntegrationTests {

	@Test
	void tokensSignedWithAKeyOfTheJwksAreAcceptedAndOthersRefused() throws Exception {
		RSAKey key = new RSAKeyGenerator(2048).keyID("k1").generate();
		RSAKey stranger = new RSAKeyGenerator(2048).keyID("k1").generate();
		try (JwksServer jwksServer = JwksServer.serving(key);
				RunningGateway gateway = RunningGateway.start("--server.port=0",
						"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
						"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
						"--streamgate.security.jwt.jwk-set-uri=" + jwksServer.uri())) {
			gateway.client()
				.get()
				.uri("/api/v1/topics")
				.header(HttpHeaders.AUTHORIZATION, "Bearer " + sign(key))
				.exchange()
				.expectStatus()
				.isOk();
			gateway.client()
				.get()
				.uri("/api/v1/topics")
				.header(HttpHeaders.AUTHORIZATION, "Bearer " + sign(stranger))
				.exchange()
				.expectStatus()
				.isUnauthorized();
			gateway.client()
				.get()
				.uri("/api/v1/topics")
				.header(HttpHeaders.AUTHORIZATION, "Bearer " + SecurityIntegrationTests.token(Map.of("admin", true),
						Instant.now().plus(Duration.ofHours(1)), "an-hmac-secret-of-at-least-32-bytes-for-hs256"))
				.exchange()
				.expectStatus()
				.isUnauthorized();
		}
	}

	private static String sign(RSAKey key) throws Exception {
		JWTClaimsSet claims = new JWTClaimsSet.Builder().subject("jwks-admin")
			.expirationTime(Date.from(Instant.now().plus(Duration.ofHours(1))))
			.claim("streamgate", Map.of("admin", true))
			.build();
		SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims);
		jwt.sign(new RSASSASigner(key));
		return jwt.serialize();
	}

}
