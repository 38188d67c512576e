package dev.streamgate.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The output of a process that runs beside a test (a decoder, an example server), its
 * lines collected as they come so that the test can wait for one.
 */
public final class ProcessLines {

	private ProcessLines() {
	}

	/**
	 * Starts reading a process's output.
	 * @param process the process, its error output redirected to its output
	 * @return the lines so far, growing until the process ends
	 */
	public static List<String> of(Process process) {
		List<String> lines = new CopyOnWriteArrayList<>();
		Thread reader = new Thread(() -> {
			try (BufferedReader output = new BufferedReader(
					new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
				String line;
				while ((line = output.readLine()) != null) {
					lines.add(line);
				}
			}
			catch (IOException ex) {
				// the process ended
			}
		});
		reader.setDaemon(true);
		reader.start();
		return lines;
	}

}
