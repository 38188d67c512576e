package dev.streamgate.mercure;

import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
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
import org.springframework.web.reactive.function.BodyInserters;

import dev.streamgate.support.JwksServer;
import dev.streamgate.support.RunningGateway;
import dev.streamgate.support.TestKafka;
import dev.streamgate.support.Tokens;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Mercure hub's keys: publishers and subscribers each verified with their own HS256
 * key when both are set, or with the keys of a JWK Set (RS256 here); the token's cookie
 * by the name configured.
 */
class MercureKeysIntegrationTests {

	private static final String PUBLISHER_KEY = "the-publishers-key-of-at-least-32-bytes";

	private static final String SUBSCRIBER_KEY = "the-subscribers-key-of-at-least-32-bytes";

	@Test
	void publishersAndSubscribersEachNeedATokenOfTheirOwnKey() {
		try (RunningGateway gateway = RunningGateway.start("--server.port=0",
				"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
				"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
				"--streamgate.mercure.publisher-key=" + PUBLISHER_KEY,
				"--streamgate.mercure.subscriber-key=" + SUBSCRIBER_KEY, "--streamgate.mercure.cookie-name=hubToken")) {
			Map<String, Object> rights = Map.of("publish", List.of("*"), "subscribe", List.of("*"));
			String byPublisherKey = Tokens.mercure(PUBLISHER_KEY, rights, null);
			String bySubscriberKey = Tokens.mercure(SUBSCRIBER_KEY, rights, null);
			assertThat(publish(gateway, bySubscriberKey)).isEqualTo(401);
			assertThat(publish(gateway, byPublisherKey)).isEqualTo(200);
			assertThat(subscribe(gateway, byPublisherKey)).isEqualTo(401);
			assertThat(subscribe(gateway, bySubscriberKey)).isEqualTo(200);
			// The cookie of the name configured, not Mercure's default.
			assertThat(subscribeByCookie(gateway, "hubToken", bySubscriberKey)).isEqualTo(200);
			assertThat(subscribeByCookie(gateway, "mercureAuthorization", bySubscriberKey)).isEqualTo(401);
		}
	}

	private static int subscribeByCookie(RunningGateway gateway, String cookie, String token) {
		return gateway.client()
			.get()
			.uri("/.well-known/mercure?topic=*")
			.cookie(cookie, token)
			.exchange()
			.returnResult(String.class)
			.getStatus()
			.value();
	}

	@Test
	void tokensSignedWithAKeyOfTheJwkSetAreTakenAndOthersRefused() throws Exception {
		RSAKey key = new RSAKeyGenerator(2048).keyID("hub").generate();
		RSAKey stranger = new RSAKeyGenerator(2048).keyID("hub").generate();
		try (JwksServer jwksServer = JwksServer.serving(key);
				RunningGateway gateway = RunningGateway.start("--server.port=0",
						"--spring.kafka.bootstrap-servers=" + TestKafka.bootstrapServers(),
						"--streamgate.kafka.topic-prefix=" + TestKafka.uniquePrefix(),
						"--streamgate.mercure.jwks-uri=" + jwksServer.uri())) {
			assertThat(publish(gateway, rs256(stranger))).isEqualTo(401);
			assertThat(publish(gateway, rs256(key))).isEqualTo(200);
			assertThat(subscribe(gateway, rs256(key))).isEqualTo(200);
			assertThat(subscribe(gateway, Tokens.mercure(PUBLISHER_KEY, Map.of("subscribe", List.of("*")), null)))
				.isEqualTo(401);
		}
	}

	private static int publish(RunningGateway gateway, String token) {
		return gateway.client()
			.post()
			.uri("/.well-known/mercure")
			.header(HttpHeaders.AUTHORIZATION, "Bearer " + token)
			.body(BodyInserters.fromFormData("topic", "https://example.com/keys").with("data", "x"))
			.exchange()
			.returnResult(String.class)
			.getStatus()
			.value();
	}

	/** The status of a subscription, which then ends at once. */
	private static int subscribe(RunningGateway gateway, String token) {
		return gateway.client()
			.get()
			.uri("/.well-known/mercure?topic=*&authorization=" + token)
			.exchange()
			.returnResult(String.class)
			.getStatus()
			.value();
	}

	private static String rs256(RSAKey key) throws Exception {
		JWTClaimsSet claims = new JWTClaimsSet.Builder()
			.expirationTime(Date.from(Instant.now().plus(Duration.ofHours(1))))
			.claim("mercure", Map.of("publish", List.of("*"), "subscribe", List.of("*")))
			.build();
		SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(), claims);
		jwt.sign(new RSASSASigner(key));
		return jwt.serialize();
	}

}
