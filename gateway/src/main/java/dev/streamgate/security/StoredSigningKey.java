package dev.streamgate.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;

import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The HS256 key a gateway without a configured secret or JWKS signs and verifies tokens
 * with, kept in a file so that tokens outlive a restart.
 * <p>
 * The file holds 32 random bytes in base64 and one line break, readable by its owner
 * only. It is written once, atomically (a complete temporary file linked into place), so
 * that two processes starting together on one data directory end up with the same key.
 * Deleting it and restarting rotates the key: every token issued before is refused.
 */
final class StoredSigningKey {

	private static final int KEY_BYTES = 32;

	private StoredSigningKey() {
	}

	/**
	 * The key in the file, made first when there is none.
	 * @param file where the key is kept
	 * @return the key
	 */
	static SecretKey loadOrCreate(Path file) {
		try {
			if (!Files.exists(file)) {
				create(file);
			}
			return read(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read or create the token signing key " + file.toAbsolutePath()
					+ "; set streamgate.security.jwt.key-file to a writable place, or streamgate.security.jwt.secret",
					ex);
		}
	}

	private static void create(Path file) throws IOException {
		Path dir = file.toAbsolutePath().getParent();
		Files.createDirectories(dir);
		byte[] random = new byte[KEY_BYTES];
		new SecureRandom().nextBytes(random);
		Path temp = Files.createTempFile(dir, ".token-key", ".tmp");
		try {
			ownerOnly(temp);
			Files.writeString(temp, Base64.getEncoder().encodeToString(random) + "\n", StandardCharsets.US_ASCII);
			try {
				// link(2) fails when the name exists: a rename would replace a key that
				// another process made a moment ago.
				Files.createLink(file, temp);
			}
			catch (UnsupportedOperationException ex) {
				Files.move(temp, file);
			}
		}
		catch (FileAlreadyExistsException ex) {
			// Another process made it first: its key is the key.
		}
		finally {
			Files.deleteIfExists(temp);
		}
	}

	private static SecretKey read(Path file) throws IOException {
		String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
		byte[] key;
		try {
			key = Base64.getDecoder().decode(text);
		}
		catch (IllegalArgumentException ex) {
			throw new IllegalStateException(
					"The token signing key " + file.toAbsolutePath()
							+ " is not base64; delete it to make a new one (tokens issued before are then refused)",
					ex);
		}
		if (key.length < KEY_BYTES) {
			throw new IllegalStateException("The token signing key " + file.toAbsolutePath() + " has " + key.length
					+ " bytes, HS256 needs " + KEY_BYTES + "; delete it to make a new one");
		}
		return new SecretKeySpec(key, "HmacSHA256");
	}

	private static void ownerOnly(Path file) throws IOException {
		if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
			Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
		}
	}

}
