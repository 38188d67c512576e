package dev.streamgate.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs a Playwright script of {@code src/test/browser} in Node (headless Chromium): its
 * environment set, its output read line by line, and a line the script prints to ask for
 * something (restart the gateway, cut the network) answered on its standard input with
 * what the test did.
 */
public final class BrowserScript {

	private BrowserScript() {
	}

	/**
	 * Runs a script to its end and checks that it passed.
	 * @param script the script's file name in {@code src/test/browser}
	 * @param environment its environment
	 * @param requests for each line the script may print, what to do and the line to
	 * answer with
	 * @return everything it printed
	 * @throws IOException when Node cannot be started
	 * @throws InterruptedException when interrupted while waiting for it
	 */
	public static String run(String script, Map<String, String> environment, Map<String, Supplier<String>> requests)
			throws IOException, InterruptedException {
		assertThat(Path.of("src", "test", "browser", "node_modules", "playwright-core"))
			.as("playwright-core, installed by src/test/browser/ensure during the build")
			.isDirectory();
		return runNode(List.of(Path.of("src", "test", "browser", script).toString()), Path.of("."), environment,
				requests);
	}

	/**
	 * Runs Node to its end and checks that it exited with 0.
	 * @param arguments Node's arguments: its options and the script
	 * @param directory where it runs
	 * @param environment its environment
	 * @param requests for each line it may print, what to do and the line to answer with
	 * @return everything it printed
	 * @throws IOException when Node cannot be started
	 * @throws InterruptedException when interrupted while waiting for it
	 */
	public static String runNode(List<String> arguments, Path directory, Map<String, String> environment,
			Map<String, Supplier<String>> requests) throws IOException, InterruptedException {
		List<String> command = new ArrayList<>(List.of("node"));
		command.addAll(arguments);
		ProcessBuilder node = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
		node.environment().putAll(environment);
		Process browser = node.start();
		List<String> output = new ArrayList<>();
		try (BufferedReader lines = new BufferedReader(
				new InputStreamReader(browser.getInputStream(), StandardCharsets.UTF_8));
				OutputStream input = browser.getOutputStream()) {
			String line;
			while ((line = lines.readLine()) != null) {
				output.add(line);
				Supplier<String> request = requests.get(line);
				if (request != null) {
					input.write((request.get() + "\n").getBytes(StandardCharsets.UTF_8));
					input.flush();
				}
			}
		}
		boolean finished = browser.waitFor(5, TimeUnit.MINUTES);
		if (!finished) {
			browser.destroyForcibly();
		}
		String text = String.join("\n", output);
		System.out.println(text);
		assertThat(finished).as("the browser test finished in time").isTrue();
		assertThat(browser.exitValue()).as(text).isZero();
		return text;
	}

}
