package dev.streamgate.security;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import javax.crypto.SecretKey;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StoredSigningKeyTests {

	@TempDir
	Path dir;

	@Test
	void theFirstLoadMakesAKeyOnlyItsOwnerCanRead() throws Exception {
		Path file = this.dir.resolve("data").resolve("token.key");
		SecretKey key = StoredSigningKey.loadOrCreate(file);
		assertThat(key.getEncoded()).hasSize(32);
		assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
		assertThat(Files.list(file.getParent())).as("no temporary file left").containsExactly(file);
	}

	@Test
	void laterLoadsReturnTheSameKey() {
		Path file = this.dir.resolve("token.key");
		SecretKey first = StoredSigningKey.loadOrCreate(file);
		SecretKey second = StoredSigningKey.loadOrCreate(file);
		assertThat(second.getEncoded()).isEqualTo(first.getEncoded());
	}

	@Test
	void aDamagedFileIsRefusedWithWhatToDo() throws Exception {
		Path file = this.dir.resolve("token.key");
		Files.writeString(file, "not base64 at all!");
		assertThatIllegalStateException().isThrownBy(() -> StoredSigningKey.loadOrCreate(file))
			.withMessageContaining("is not base64; delete it");
		Files.writeString(file, "c2hvcnQ=");
		assertThatIllegalStateException().isThrownBy(() -> StoredSigningKey.loadOrCreate(file))
			.withMessageContaining("HS256 needs 32");
	}

	@Test
	void anUnwritablePlaceNamesTheSettingToChange() throws Exception {
		Path blocker = this.dir.resolve("a-file");
		Files.writeString(blocker, "x");
		assertThatThrownBy(() -> StoredSigningKey.loadOrCreate(blocker.resolve("token.key")))
			.isInstanceOf(UncheckedIOException.class)
			.hasMessageContaining("streamgate.security.jwt.key-file");
	}

}
