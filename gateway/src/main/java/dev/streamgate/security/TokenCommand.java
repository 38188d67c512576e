package dev.streamgate.security;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.crypto.SecretKey;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code java -jar streamgate.jar token [options]}: mints a scoped token with the key the
 * gateway verifies with (the configured {@code streamgate.security.jwt.secret}, or the
 * key file a standalone gateway made), so that nobody writes code to get one. The same
 * configuration sources as the gateway apply: {@code --key=value} arguments, environment
 * variables, {@code application.yml}.
 */
public final class TokenCommand {

	static final String USAGE = """
			Usage: java -jar streamgate.jar token [options] [--config.key=value ...]
			Prints a signed token (HS256) for the gateway with the same configuration.
			  --admin              the topic and webhook APIs, and every topic
			  --publish PATTERN    topics it may publish to, * matches anything (repeatable)
			  --subscribe PATTERN  topics it may stream (repeatable)
			  --ttl DURATION       how long it is valid: 30m, 1h, 7d or ISO-8601 (default 1h)
			  --subject NAME       its sub claim (default streamgate-cli)
			The key: streamgate.security.jwt.secret, else the key file a standalone gateway made
			(streamgate.security.jwt.key-file, default ./data/token.key).
			""";

	private TokenCommand() {
	}

	/**
	 * Whether the command line asks for this command rather than the gateway.
	 * @param args the command line
	 * @return true for {@code token ...}
	 */
	public static boolean isCalled(String[] args) {
		return args.length > 0 && "token".equals(args[0]);
	}

	/**
	 * Runs the command.
	 * @param args the command line, {@code token} first
	 * @param out where the token goes
	 * @param err where usage and errors go
	 * @return the exit code: 0 done, 2 bad usage or no key
	 */
	public static int run(String[] args, PrintStream out, PrintStream err) {
		Request request;
		try {
			request = Request.parse(Arrays.copyOfRange(args, 1, args.length));
		}
		catch (IllegalArgumentException ex) {
			err.println(ex.getMessage());
			err.print(USAGE);
			return 2;
		}
		if (request.help()) {
			out.print(USAGE);
			return 0;
		}
		SecurityProperties properties;
		Path keyFile;
		try (ConfigurableApplicationContext context = configuration(request.configuration())) {
			properties = context.getBean(SecurityProperties.class);
			keyFile = SecurityConfiguration.keyFile(properties, context.getEnvironment());
		}
		SecretKey key;
		String secret = properties.jwt().secret();
		if (secret != null && !secret.isEmpty()) {
			key = SecurityConfiguration.secretKey(secret);
		}
		else if (properties.jwt().jwkSetUri() != null) {
			err.println("The gateway verifies tokens against " + properties.jwt().jwkSetUri()
					+ ": tokens come from the identity provider that publishes it.");
			return 2;
		}
		else if (!Files.exists(keyFile)) {
			err.println("No key: streamgate.security.jwt.secret is not set and " + keyFile.toAbsolutePath()
					+ " does not exist. Start the gateway once (it makes the key there), run this command from "
					+ "the gateway's directory, or give --streamgate.security.jwt.key-file=PATH.");
			return 2;
		}
		else {
			key = StoredSigningKey.loadOrCreate(keyFile);
		}
		out.println(mint(key, request.subject(), request.grants(), Instant.now().plus(request.ttl())));
		return 0;
	}

	private static ConfigurableApplicationContext configuration(List<String> args) {
		return new SpringApplicationBuilder(Settings.class).web(WebApplicationType.NONE)
			.bannerMode(Banner.Mode.OFF)
			.logStartupInfo(false)
			.properties("logging.level.root=warn")
			.run(args.toArray(String[]::new));
	}

	/**
	 * Signs a token.
	 * @param key the HS256 key
	 * @param subject its {@code sub}
	 * @param grants its {@code streamgate} claim
	 * @param expires its {@code exp}
	 * @return the compact JWT
	 */
	static String mint(SecretKey key, String subject, Map<String, Object> grants, Instant expires) {
		JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject)
			.issueTime(new Date())
			.expirationTime(Date.from(expires))
			.claim("streamgate", grants)
			.build();
		SignedJWT token = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
		try {
			token.sign(new MACSigner(key));
		}
		catch (JOSEException ex) {
			throw new IllegalStateException("Could not sign the token", ex);
		}
		return token.serialize();
	}

	/**
	 * Only the security settings, bound from the gateway's configuration sources (not a
	 * {@code @Configuration}: the gateway's component scan must not pick it up).
	 */
	@EnableConfigurationProperties(SecurityProperties.class)
	static class Settings {

	}

	/**
	 * What was asked for.
	 *
	 * @param help whether only the usage was asked for
	 * @param subject the token's subject
	 * @param grants the {@code streamgate} claim
	 * @param ttl how long it is valid
	 * @param configuration {@code --key=value} arguments for the configuration
	 */
	record Request(boolean help, String subject, Map<String, Object> grants, Duration ttl, List<String> configuration) {

		static Request parse(String[] args) {
			boolean help = false;
			boolean admin = false;
			String subject = "streamgate-cli";
			Duration ttl = Duration.ofHours(1);
			List<String> publish = new ArrayList<>();
			List<String> subscribe = new ArrayList<>();
			List<String> configuration = new ArrayList<>();
			for (int i = 0; i < args.length; i++) {
				String arg = args[i];
				switch (arg) {
					case "--help", "-h" -> help = true;
					case "--admin" -> admin = true;
					case "--publish" -> publish.add(value(args, ++i, arg));
					case "--subscribe" -> subscribe.add(value(args, ++i, arg));
					case "--subject" -> subject = value(args, ++i, arg);
					case "--ttl" -> ttl = duration(value(args, ++i, arg));
					default -> {
						if (!arg.startsWith("--") || !arg.contains("=")) {
							throw new IllegalArgumentException("Unknown argument: " + arg);
						}
						configuration.add(arg);
					}
				}
			}
			if (!help && !admin && publish.isEmpty() && subscribe.isEmpty()) {
				throw new IllegalArgumentException("Grant something: --admin, --publish or --subscribe");
			}
			Map<String, Object> grants = new LinkedHashMap<>();
			grants.put("admin", admin);
			grants.put("publish", List.copyOf(publish));
			grants.put("subscribe", List.copyOf(subscribe));
			return new Request(help, subject, grants, ttl, configuration);
		}

		private static String value(String[] args, int index, String option) {
			if (index >= args.length || args[index].startsWith("--")) {
				throw new IllegalArgumentException(option + " needs a value");
			}
			return args[index];
		}

		private static Duration duration(String text) {
			Duration ttl;
			try {
				ttl = DurationStyle.detectAndParse(text);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("--ttl: not a duration: " + text);
			}
			if (ttl.isNegative() || ttl.isZero()) {
				throw new IllegalArgumentException("--ttl must be positive: " + text);
			}
			return ttl;
		}

	}

}
