package dev.streamgate.publish.poller;

import java.util.Locale;

/**
 * Reads the target of {@code rel="next"} from RFC 8288 {@code Link} header values, such
 * as {@code <https://api.example.com/items?page=2>; rel="next", <...>; rel="last"}.
 * Relation types are compared case-insensitively and may be a space-separated list; a
 * quoted parameter value may hold commas and semicolons; only the first {@code rel} of a
 * link counts, as the RFC says.
 */
final class LinkHeader {

	private final String header;

	private int at;

	private LinkHeader(String header) {
		this.header = header;
	}

	/**
	 * The target of the first link whose relation types include {@code next}.
	 * @param header the field value, several {@code Link} fields joined with commas
	 * @return the target as written (maybe relative), or {@code null} when there is none
	 */
	static String next(String header) {
		return (header != null) ? new LinkHeader(header).findNext() : null;
	}

	private String findNext() {
		while (true) {
			int open = this.header.indexOf('<', this.at);
			if (open < 0) {
				return null;
			}
			int close = this.header.indexOf('>', open);
			if (close < 0) {
				return null;
			}
			String target = this.header.substring(open + 1, close).trim();
			this.at = close + 1;
			String rel = null;
			while (this.at < this.header.length() && this.header.charAt(this.at) != ',') {
				if (this.header.charAt(this.at) == ';') {
					this.at++;
					String name = token("=;,").toLowerCase(Locale.ROOT);
					String value = null;
					if (this.at < this.header.length() && this.header.charAt(this.at) == '=') {
						this.at++;
						value = value();
					}
					if (name.equals("rel") && rel == null) {
						rel = (value != null) ? value : "";
					}
				}
				else {
					this.at++;
				}
			}
			if (rel != null) {
				for (String type : rel.trim().split("\\s+")) {
					if (type.equalsIgnoreCase("next")) {
						return target;
					}
				}
			}
		}
	}

	/** Characters up to one of the stops, trimmed. */
	private String token(String stops) {
		int start = this.at;
		while (this.at < this.header.length() && stops.indexOf(this.header.charAt(this.at)) < 0) {
			this.at++;
		}
		return this.header.substring(start, this.at).trim();
	}

	/** A parameter value: a quoted string (with backslash escapes) or a token. */
	private String value() {
		while (this.at < this.header.length() && this.header.charAt(this.at) == ' ') {
			this.at++;
		}
		if (this.at >= this.header.length() || this.header.charAt(this.at) != '"') {
			return token(";,");
		}
		StringBuilder value = new StringBuilder();
		this.at++;
		while (this.at < this.header.length() && this.header.charAt(this.at) != '"') {
			char c = this.header.charAt(this.at);
			if (c == '\\' && this.at + 1 < this.header.length()) {
				c = this.header.charAt(++this.at);
			}
			value.append(c);
			this.at++;
		}
		this.at++;
		return value.toString();
	}

}
