package dev.streamgate.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a JVM that a test starts on this module's class path: a gateway or
 * a broker of its own, to kill, restart or run beside another.
 */
final class JavaCommand {

	/**
	 * Such a JVM lives for seconds to a few minutes and does little work, and the C2
	 * compiler would spend a large part of its first minute's CPU on code that it makes
	 * faster only later. The two test JVMs of this module and the processes they start
	 * share the machine's cores, so that CPU is what every other test waits for. The
	 * first tier's code behaves the same, only slower.
	 */
	private static final List<String> JIT = List.of("-XX:TieredStopAtLevel=1");

	private JavaCommand() {
	}

	/**
	 * The command that runs a main class.
	 * @param jvmOptions options of the JVM, before the class path
	 * @param main the main class
	 * @param args the program's arguments
	 * @return the command
	 */
	static List<String> of(List<String> jvmOptions, Class<?> main, List<String> args) {
		List<String> command = new ArrayList<>();
		command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
		command.addAll(JIT);
		command.addAll(jvmOptions);
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
		command.addAll(args);
		return command;
	}

}
