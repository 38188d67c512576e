package dev.streamgate.security;

/**
 * The firewall's checks of header names and values, as Spring Security's
 * {@code StrictServerWebExchangeFirewall} makes them by default (every code point
 * assigned, none a control character, a value may hold tabs), without a regular
 * expression: its default predicates make a {@code Matcher} for every header of every
 * request (3.6 % of the bytes allocated per publication in an allocation profile).
 */
final class HeaderCharacters {

	private HeaderCharacters() {
	}

	/**
	 * Whether a header name is allowed.
	 * @param name the name
	 * @return {@code true} when every code point is assigned and none is a control
	 * character, or for none (a header asked for and absent)
	 */
	static boolean allowedName(String name) {
		return name == null || allowed(name, false);
	}

	/**
	 * Whether a header value is allowed.
	 * @param value the value
	 * @return {@code true} when every code point is assigned and none is a control
	 * character other than a tab, or for none (a header asked for and absent)
	 */
	static boolean allowedValue(String value) {
		return value == null || allowed(value, true);
	}

	private static boolean allowed(String text, boolean tab) {
		for (int i = 0; i < text.length();) {
			int codePoint = text.codePointAt(i);
			int type = Character.getType(codePoint);
			if (type == Character.UNASSIGNED || (type == Character.CONTROL && !(tab && codePoint == '\t'))) {
				return false;
			}
			i += Character.charCount(codePoint);
		}
		return true;
	}

}
