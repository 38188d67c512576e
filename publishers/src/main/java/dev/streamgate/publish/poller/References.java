package dev.streamgate.publish.poller;

import java.net.URI;

/**
 * Resolves URI references as RFC 3986 (section 5.2.2) does. {@link URI#resolve} follows
 * RFC 2396, which drops the last path segment of the base for a reference that is only a
 * query: {@code ?page=3} against {@code /v1/items?page=2} must give
 * {@code /v1/items?page=3}, not {@code /v1/?page=3}. Paginated APIs send exactly such
 * references.
 */
final class References {

	private References() {
	}

	/**
	 * The target of a reference.
	 * @param base the URI the reference was found in
	 * @param reference the reference, absolute or relative
	 * @return the absolute target
	 * @throws IllegalArgumentException when the reference is not a URI reference
	 */
	static URI resolve(URI base, String reference) {
		URI relative = URI.create(reference);
		if (relative.getScheme() == null && relative.getRawAuthority() == null
				&& (relative.getRawPath() == null || relative.getRawPath().isEmpty())) {
			String query = (relative.getRawQuery() != null) ? relative.getRawQuery() : base.getRawQuery();
			return URI.create(base.getScheme() + "://" + base.getRawAuthority()
					+ ((base.getRawPath() != null) ? base.getRawPath() : "") + ((query != null) ? "?" + query : "")
					+ ((relative.getRawFragment() != null) ? "#" + relative.getRawFragment() : ""));
		}
		return base.resolve(relative);
	}

}
