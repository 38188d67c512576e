package dev.streamgate.support;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.Map;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;

/**
 * HS256 tokens as an operator's identity provider would issue them.
 */
public final class Tokens {

	private Tokens() {
	}

	/**
	 * Signs a token.
	 * @param secret the HMAC secret
	 * @param rights the {@code streamgate} claim
	 * @param expires the expiry, or {@code null} for a token without {@code exp}
	 * @return the compact JWT
	 */
	public static String hs256(String secret, Map<String, Object> rights, Instant expires) {
		return hs256(secret, "test", rights, expires);
	}

	/**
	 * Signs a token for a subject.
	 * @param secret the HMAC secret
	 * @param subject the {@code sub} claim
	 * @param rights the {@code streamgate} claim
	 * @param expires the expiry, or {@code null} for a token without {@code exp}
	 * @return the compact JWT
	 */
	public static String hs256(String secret, String subject, Map<String, Object> rights, Instant expires) {
		return sign(secret, new JWTClaimsSet.Builder().subject(subject).claim("streamgate", rights), expires);
	}

	/**
	 * Signs a Mercure token: its rights in the {@code mercure} claim.
	 * @param key the hub's HS256 key
	 * @param mercure the {@code mercure} claim ({@code publish}, {@code subscribe},
	 * {@code payload})
	 * @param expires the expiry, or {@code null} for a token without {@code exp}
	 * @return the compact JWT
	 */
	public static String mercure(String key, Map<String, Object> mercure, Instant expires) {
		return sign(key, new JWTClaimsSet.Builder().claim("mercure", mercure), expires);
	}

	private static String sign(String secret, JWTClaimsSet.Builder claims, Instant expires) {
		if (expires != null) {
			claims.expirationTime(Date.from(expires));
		}
		SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims.build());
		try {
			jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
		}
		catch (JOSEException ex) {
			throw new IllegalStateException(ex);
		}
		return jwt.serialize();
	}

}
