package dev.streamgate.core.storage;

/**
 * A read of a source or a write of a mirror that failed, with a message that says why and
 * never a password.
 */
public class MirrorException extends RuntimeException {

	private final Kind kind;

	public MirrorException(Kind kind, String message) {
		super(message, null, false, false);
		this.kind = kind;
	}

	/**
	 * What failed.
	 * @return the kind
	 */
	public Kind kind() {
		return this.kind;
	}

	/**
	 * Whether another writer of the topic took over: this one must stop.
	 * @return true when fenced
	 */
	public boolean fenced() {
		return this.kind == Kind.FENCED;
	}

	/** What failed. */
	public enum Kind {

		/** The source cluster did not answer. */
		UNREACHABLE,

		/** The source cluster refused the credentials or the access to the topic. */
		AUTH,

		/** The source topic does not exist. */
		MISSING,

		/** Writing to the gateway's cluster failed. */
		WRITE,

		/** Another writer of the topic took over. */
		FENCED

	}

}
