package dev.streamgate.security;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import javax.crypto.SecretKey;

import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.SignedJWT;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class TokenCommandTests {

	private static final String SECRET = "token-command-test-secret-of-32-bytes!";

	@TempDir
	Path dir;

	private final ByteArrayOutputStream out = new ByteArrayOutputStream();

	private final ByteArrayOutputStream err = new ByteArrayOutputStream();

	private int run(String... args) {
		return TokenCommand.run(args, new PrintStream(this.out, true, StandardCharsets.UTF_8),
				new PrintStream(this.err, true, StandardCharsets.UTF_8));
	}

	private SignedJWT printedToken(byte[] key) throws Exception {
		SignedJWT token = SignedJWT.parse(this.out.toString(StandardCharsets.UTF_8).trim());
		assertThat(token.verify(new MACVerifier(key))).as("signed with the gateway's key").isTrue();
		return token;
	}

	@Test
	void mintsAScopedTokenWithTheConfiguredSecret() throws Exception {
		int exit = run("token", "--subscribe", "orders.*", "--subscribe", "prices", "--publish", "orders.eu", "--ttl",
				"2h", "--subject", "quant-desk", "--streamgate.security.jwt.secret=" + SECRET);
		assertThat(exit).as(this.err.toString(StandardCharsets.UTF_8)).isZero();
		SignedJWT token = printedToken(SECRET.getBytes(StandardCharsets.UTF_8));
		assertThat(token.getJWTClaimsSet().getSubject()).isEqualTo("quant-desk");
		assertThat(token.getJWTClaimsSet().getExpirationTime().toInstant())
			.isCloseTo(Instant.now().plus(Duration.ofHours(2)), within(Duration.ofSeconds(30)));
		Map<String, Object> grants = token.getJWTClaimsSet().getJSONObjectClaim("streamgate");
		assertThat(grants).containsEntry("admin", false)
			.containsEntry("subscribe", List.of("orders.*", "prices"))
			.containsEntry("publish", List.of("orders.eu"));
		Grants read = Grants.from(grants);
		assertThat(read.canSubscribe("orders.us")).isTrue();
		assertThat(read.canPublish("orders.us")).isFalse();
	}

	@Test
	void usesTheKeyFileAStandaloneGatewayMade() throws Exception {
		Path file = this.dir.resolve("token.key");
		SecretKey key = StoredSigningKey.loadOrCreate(file);
		int exit = run("token", "--admin", "--streamgate.security.jwt.key-file=" + file);
		assertThat(exit).as(this.err.toString(StandardCharsets.UTF_8)).isZero();
		SignedJWT token = printedToken(key.getEncoded());
		assertThat(Grants.from(token.getJWTClaimsSet().getClaim("streamgate")).admin()).isTrue();
		assertThat(token.getJWTClaimsSet().getExpirationTime().toInstant())
			.isCloseTo(Instant.now().plus(Duration.ofHours(1)), within(Duration.ofSeconds(30)));
	}

	@Test
	void theKeyFileDefaultsToBesideTheEmbeddedBrokersStorage() throws Exception {
		Path file = this.dir.resolve("token.key");
		SecretKey key = StoredSigningKey.loadOrCreate(file);
		int exit = run("token", "--admin", "--streamgate.embedded-kafka.data-dir=" + this.dir.resolve("kafka"));
		assertThat(exit).as(this.err.toString(StandardCharsets.UTF_8)).isZero();
		printedToken(key.getEncoded());
	}

	@Test
	void withoutAKeyItSaysWhereItLookedAndMakesNone() {
		Path file = this.dir.resolve("none").resolve("token.key");
		assertThat(run("token", "--admin", "--streamgate.security.jwt.key-file=" + file)).isEqualTo(2);
		assertThat(this.err.toString(StandardCharsets.UTF_8)).contains(file.toAbsolutePath().toString())
			.contains("Start the gateway once");
		assertThat(file).doesNotExist();
		assertThat(this.out.size()).isZero();
	}

	@Test
	void aJwksGatewayIsToldToAskItsIdentityProvider() {
		assertThat(run("token", "--admin", "--streamgate.security.jwt.jwk-set-uri=https://idp.example.com/jwks"))
			.isEqualTo(2);
		assertThat(this.err.toString(StandardCharsets.UTF_8)).contains("identity provider");
	}

	@Test
	void badUsageGetsTheUsage() {
		assertThat(run("token")).isEqualTo(2);
		assertThat(this.err.toString(StandardCharsets.UTF_8)).contains("Grant something").contains("Usage:");
		this.err.reset();
		assertThat(run("token", "--subscribe")).isEqualTo(2);
		assertThat(this.err.toString(StandardCharsets.UTF_8)).contains("--subscribe needs a value");
		this.err.reset();
		assertThat(run("token", "--admin", "--ttl", "soon")).isEqualTo(2);
		assertThat(this.err.toString(StandardCharsets.UTF_8)).contains("not a duration: soon");
		this.err.reset();
		assertThat(run("token", "--admin", "--ttl", "-5m")).isEqualTo(2);
		assertThat(run("token", "--bogus")).isEqualTo(2);
		assertThat(run("token", "--help")).isZero();
		assertThat(this.out.toString(StandardCharsets.UTF_8)).contains("--subscribe PATTERN");
	}

}
