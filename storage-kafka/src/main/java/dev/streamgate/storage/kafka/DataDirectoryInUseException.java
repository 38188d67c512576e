package dev.streamgate.storage.kafka;

import java.nio.file.Path;

/**
 * Another process (or another broker of this one) owns the embedded broker's data
 * directory.
 */
public class DataDirectoryInUseException extends IllegalStateException {

	private final transient Path dataDir;

	DataDirectoryInUseException(Path dataDir) {
		super("The data directory " + dataDir + " is in use by another streamgate process");
		this.dataDir = dataDir;
	}

	public Path dataDir() {
		return this.dataDir;
	}

}
