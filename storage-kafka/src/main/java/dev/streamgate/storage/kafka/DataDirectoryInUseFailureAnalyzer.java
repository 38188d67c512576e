package dev.streamgate.storage.kafka;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Explains a start refused because another gateway owns the embedded broker's data
 * directory, instead of a stack trace.
 */
class DataDirectoryInUseFailureAnalyzer extends AbstractFailureAnalyzer<DataDirectoryInUseException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, DataDirectoryInUseException cause) {
		return new FailureAnalysis(cause.getMessage() + "; nothing in it was touched.",
				"Stop the gateway that runs on " + cause.dataDir()
						+ ", or give this one a directory of its own with --streamgate.embedded-kafka.data-dir=<dir> "
						+ "(and --server.port and --streamgate.embedded-kafka.port to run both).",
				cause);
	}

}
