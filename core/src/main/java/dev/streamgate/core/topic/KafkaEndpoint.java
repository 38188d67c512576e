package dev.streamgate.core.topic;

import java.util.List;
import java.util.regex.Pattern;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;

import dev.streamgate.core.problem.StreamgateException.FieldError;

/**
 * A Kafka topic of a cluster the user names (or of the gateway's own): where a
 * subscription delivers instead of an HTTP endpoint (each delivery's envelope one record,
 * keyed by the streamgate topic id, so one streamgate topic stays in order in one
 * partition, with its id, type and topic as headers), or what a {@code kafka} publisher
 * mirrors into a topic.
 *
 * @param bootstrapServers {@code host:port} pairs separated by commas; {@code null} for
 * the gateway's own cluster
 * @param topic the Kafka topic, which must exist
 * @param security how to connect, {@code null} for PLAINTEXT
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(description = "A Kafka topic, of the gateway's cluster or of one it reaches, and how to connect")
public record KafkaEndpoint(
		@Schema(description = "host:port,host:port; absent: the gateway's own cluster",
				example = "kafka-1.example.com:9093") String bootstrapServers,
		@Schema(requiredMode = Schema.RequiredMode.REQUIRED, example = "orders-out") String topic, Security security) {

	private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

	private static final Pattern SERVER = Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[a-zA-Z0-9.-]+):[0-9]{1,5}");

	/**
	 * The {@code host:port} pairs of the bootstrap servers.
	 * @return the pairs, empty for the gateway's own cluster
	 */
	public List<String> servers() {
		return (this.bootstrapServers != null) ? List.of(this.bootstrapServers.trim().split("\\s*,\\s*")) : List.of();
	}

	/**
	 * These settings with another password, the stored one when a client sent back the
	 * mask it read.
	 * @param password the password
	 * @return the settings
	 */
	public KafkaEndpoint withPassword(String password) {
		return (this.security != null)
				? new KafkaEndpoint(this.bootstrapServers, this.topic, new Security(this.security.protocol,
						this.security.mechanism, this.security.username, password, this.security.trustedCertificates))
				: this;
	}

	/**
	 * Adds the rule violations of these settings.
	 * @param at the JSON pointer of the settings in the request
	 * @param errors where violations are added
	 */
	public void validate(String at, List<FieldError> errors) {
		if (this.bootstrapServers != null && (this.bootstrapServers.isBlank()
				|| !servers().stream().allMatch((s) -> SERVER.matcher(s).matches()))) {
			errors.add(new FieldError(at + "/bootstrapServers", "must be host:port pairs separated by commas"));
		}
		if (this.topic == null || !TOPIC.matcher(this.topic).matches() || this.topic.equals(".")
				|| this.topic.equals("..")) {
			errors.add(new FieldError(at + "/topic",
					"is required: a Kafka topic name of 1 to 249 letters, digits, . _ -"));
		}
		if (this.security != null) {
			this.security.validate(at + "/security", errors);
		}
	}

	@Override
	public String toString() {
		return "KafkaEndpoint[" + ((this.bootstrapServers != null) ? this.bootstrapServers : "own cluster") + "/"
				+ this.topic + "]";
	}

	/**
	 * How to connect to the cluster.
	 *
	 * @param protocol the security protocol
	 * @param mechanism the SASL mechanism, for the SASL protocols
	 * @param username the SASL user name
	 * @param password the SASL password, write-only
	 * @param trustedCertificates PEM certificates to trust for TLS, instead of the JVM's
	 * trust store
	 */
	@JsonInclude(JsonInclude.Include.NON_NULL)
	public record Security(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) Protocol protocol, Mechanism mechanism,
			String username,
			@Schema(accessMode = Schema.AccessMode.WRITE_ONLY,
					description = "write-only: read back as ******") String password,
			@Schema(description = "PEM certificates of the CAs to trust") String trustedCertificates) {

		void validate(String at, List<FieldError> errors) {
			if (this.protocol == null) {
				errors.add(new FieldError(at + "/protocol", "is required: PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL"));
				return;
			}
			boolean sasl = this.protocol == Protocol.SASL_PLAINTEXT || this.protocol == Protocol.SASL_SSL;
			if (sasl && (this.mechanism == null || this.username == null || this.username.isBlank()
					|| this.password == null || this.password.isEmpty())) {
				errors.add(new FieldError(at,
						"SASL needs mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), username " + "and password"));
			}
			if (!sasl && (this.mechanism != null || this.username != null || this.password != null)) {
				errors.add(new FieldError(at, "mechanism, username and password are for SASL_PLAINTEXT and SASL_SSL"));
			}
			if (this.trustedCertificates != null
					&& (this.protocol == Protocol.PLAINTEXT || this.protocol == Protocol.SASL_PLAINTEXT
							|| !this.trustedCertificates.contains("-----BEGIN CERTIFICATE-----"))) {
				errors
					.add(new FieldError(at + "/trustedCertificates", "must be PEM certificates, for SSL or SASL_SSL"));
			}
			for (String text : new String[] { this.username, this.password }) {
				if (text != null && (text.length() > 4096 || text.chars().anyMatch((c) -> c < 0x20 || c == '"'))) {
					errors.add(new FieldError(at, "username and password must be at most 4096 characters without "
							+ "control characters or quotes"));
					break;
				}
			}
		}

	}

	/** Kafka's security protocols. */
	public enum Protocol {

		PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL

	}

	/** The SASL mechanisms streamgate speaks. */
	public enum Mechanism {

		@JsonProperty("PLAIN")
		PLAIN("PLAIN"),

		@JsonProperty("SCRAM-SHA-256")
		SCRAM_SHA_256("SCRAM-SHA-256"),

		@JsonProperty("SCRAM-SHA-512")
		SCRAM_SHA_512("SCRAM-SHA-512");

		private final String value;

		Mechanism(String value) {
			this.value = value;
		}

		@Override
		public String toString() {
			return this.value;
		}

	}

}
