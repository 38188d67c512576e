package dev.streamgate.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A key pair and its self-signed certificate for {@code localhost} and {@code 127.0.0.1},
 * made by the JDK's {@code keytool}: a PKCS12 key store for the server and the
 * certificate in PEM for the clients that are to trust it.
 *
 * @param keyStore the PKCS12 key store
 * @param password the key store's password, also the key's
 * @param pem the certificate, PEM-encoded
 */
public record SelfSignedCertificate(Path keyStore, String password, String pem) {

	/**
	 * Makes a new key pair and certificate, valid for two days.
	 * @param dir where the key store is written
	 * @param name the key store's file name, without extension
	 * @return the certificate
	 */
	public static SelfSignedCertificate create(Path dir, String name) {
		Path keyStore = dir.resolve(name + ".p12");
		Path certificate = dir.resolve(name + ".pem");
		String password = "changeit";
		keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
				"-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore",
				keyStore.toString(), "-storepass", password);
		keytool("-exportcert", "-rfc", "-alias", name, "-keystore", keyStore.toString(), "-storepass", password,
				"-file", certificate.toString());
		try {
			return new SelfSignedCertificate(keyStore, password, Files.readString(certificate, StandardCharsets.UTF_8));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void keytool(String... args) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
		command.addAll(List.of(args));
		try {
			Process keytool = new ProcessBuilder(command).inheritIO().start();
			if (!keytool.waitFor(60, TimeUnit.SECONDS) || keytool.exitValue() != 0) {
				throw new IllegalStateException("keytool failed: " + command);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
