package dev.streamgate.core.egress;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;

import dev.streamgate.core.problem.StreamgateException.FieldError;

/**
 * The one way a URL that the gateway will call (a poller's source, a webhook, a token
 * endpoint) is read and checked when it is registered: absolute, http or https, a host,
 * no credentials in it and no fragment. A URL with user information is refused rather
 * than read: {@code http://127.0.0.1%2f@x/} names host {@code x} to one parser and
 * something else to another.
 */
public final class EgressUrls {

	private EgressUrls() {
	}

	/**
	 * Parses and checks a URL given as text.
	 * @param text the URL
	 * @param pointer the JSON pointer of the URL in the request
	 * @param errors where violations are added
	 * @return the URL, or {@code null} when it is none
	 */
	public static URI parse(String text, String pointer, List<FieldError> errors) {
		try {
			URI url = new URI(text);
			check(url, pointer, errors);
			return url;
		}
		catch (URISyntaxException ex) {
			errors.add(new FieldError(pointer, "is not a URL: " + ex.getReason()));
			return null;
		}
	}

	/**
	 * Checks a URL.
	 * @param url the URL
	 * @param pointer the JSON pointer of the URL in the request
	 * @param errors where violations are added
	 */
	public static void check(URI url, String pointer, List<FieldError> errors) {
		String scheme = (url.getScheme() != null) ? url.getScheme().toLowerCase(Locale.ROOT) : "";
		if (!url.isAbsolute() || !scheme.equals("http") && !scheme.equals("https")) {
			errors.add(new FieldError(pointer, "must be an absolute http or https URL"));
		}
		else if (url.getRawUserInfo() != null) {
			errors.add(new FieldError(pointer, "must not hold credentials (user information before an @); "
					+ "send them as a header or with the publisher's or webhook's own settings"));
		}
		else if (url.getHost() == null || url.getHost().isEmpty()) {
			errors.add(new FieldError(pointer, "must name a host"));
		}
		else if (url.getRawFragment() != null) {
			errors.add(new FieldError(pointer, "must not have a fragment"));
		}
	}

}
