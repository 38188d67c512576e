package dev.streamgate.core.storage;

import java.util.EnumSet;

import org.junit.jupiter.api.Test;
import org.springframework.mock.env.MockEnvironment;

import dev.streamgate.core.role.Role;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class StorageModeTests {

	private static final EnumSet<Role> ALL = EnumSet.allOf(Role.class);

	@Test
	void kafkaUnlessToldOtherwise() {
		assertThat(StorageMode.of(new MockEnvironment(), EnumSet.of(Role.STREAM))).isEqualTo(StorageMode.KAFKA);
		assertThat(StorageMode.of(environment(" Kafka "), EnumSet.of(Role.STREAM))).isEqualTo(StorageMode.KAFKA);
	}

	@Test
	void memoryForANodeThatRunsEveryRole() {
		assertThat(StorageMode.of(environment("memory"), ALL)).isEqualTo(StorageMode.MEMORY);
	}

	@Test
	void memoryIsRefusedToANodeOfACluster() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> StorageMode.of(environment("memory"), EnumSet.of(Role.INGEST, Role.STREAM)))
			.withMessageContaining("streamgate.roles=all");
	}

	@Test
	void anUnknownStorageIsNamedInTheRefusal() {
		assertThatIllegalArgumentException().isThrownBy(() -> StorageMode.of(environment("redis"), ALL))
			.withMessage("streamgate.storage is kafka or memory, not 'redis'");
	}

	private static MockEnvironment environment(String storage) {
		return new MockEnvironment().withProperty(StorageMode.PROPERTY, storage);
	}

}
