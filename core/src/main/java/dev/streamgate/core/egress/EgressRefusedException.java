package dev.streamgate.core.egress;

/**
 * A connection the egress guard refused: the host resolved only to addresses inside the
 * operator's network.
 */
public class EgressRefusedException extends RuntimeException {

	public EgressRefusedException(String reason) {
		super(reason);
	}

}
