package dev.streamgate.subscribe.webhook;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Standard Webhooks signing secrets and signatures: a secret is {@code whsec_} and the
 * base64 of 24 to 64 random bytes; a signature is {@code v1,} and the base64 HMAC-SHA256
 * of {@code id.timestamp.body}.
 */
public final class Signatures {

	/** The prefix of every secret. */
	public static final String PREFIX = "whsec_";

	private static final SecureRandom RANDOM = new SecureRandom();

	private static final ThreadLocal<Mac> MACS = ThreadLocal.withInitial(() -> {
		try {
			return Mac.getInstance("HmacSHA256");
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HmacSHA256 is not available", ex);
		}
	});

	private Signatures() {
	}

	/**
	 * A new random secret of 32 bytes.
	 * @return the secret
	 */
	public static String newSecret() {
		byte[] key = new byte[32];
		RANDOM.nextBytes(key);
		return PREFIX + Base64.getEncoder().encodeToString(key);
	}

	/**
	 * Why a secret cannot be used, if it cannot.
	 * @param secret a secret a client gave
	 * @return the reason, or {@code null} when it is fine
	 */
	public static String refusal(String secret) {
		if (!secret.startsWith(PREFIX)) {
			return "must start with " + PREFIX;
		}
		byte[] key;
		try {
			key = Base64.getDecoder().decode(secret.substring(PREFIX.length()));
		}
		catch (IllegalArgumentException ex) {
			return "must be " + PREFIX + " followed by standard base64";
		}
		if (key.length < 24 || key.length > 64) {
			return "must hold 24 to 64 bytes of key, holds " + key.length;
		}
		return null;
	}

	/**
	 * Signs one delivery.
	 * @param secret the webhook's secret
	 * @param id the {@code webhook-id}
	 * @param timestamp the {@code webhook-timestamp}, in seconds
	 * @param body the body
	 * @return the {@code webhook-signature} value
	 */
	public static String sign(String secret, String id, long timestamp, byte[] body) {
		try {
			Mac mac = MACS.get();
			mac.init(new SecretKeySpec(Base64.getDecoder().decode(secret.substring(PREFIX.length())), "HmacSHA256"));
			mac.update((id + "." + timestamp + ".").getBytes(StandardCharsets.UTF_8));
			return "v1," + Base64.getEncoder().encodeToString(mac.doFinal(body));
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HmacSHA256 is not available", ex);
		}
	}

}
