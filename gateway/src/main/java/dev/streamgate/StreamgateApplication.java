package dev.streamgate;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import reactor.netty.ReactorNetty;

import dev.streamgate.security.TokenCommand;

/**
 * The streamgate gateway: every role in one application, switched by
 * {@code streamgate.roles}.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
public class StreamgateApplication {

	public static void main(String[] args) {
		if (TokenCommand.isCalled(args)) {
			System.exit(TokenCommand.run(args, System.out, System.err));
		}
		if (HelpCommand.isCalled(args)) {
			System.exit(HelpCommand.run(args, System.out));
		}
		acceptOnItsOwnThread();
		SpringApplication.run(StreamgateApplication.class, args);
	}

	/**
	 * Reactor Netty accepts connections on one of the event loops that also serve them
	 * unless told otherwise. Under load that loop accepts only between its other work,
	 * and new connections wait in the kernel's accept queue: 200 publishers a second
	 * opening connections left over 1,000 of them queued and requests arriving 20 s after
	 * they were sent. One thread that does nothing but accept keeps the queue empty. An
	 * operator's own {@code -Dreactor.netty.ioSelectCount} wins.
	 */
	static void acceptOnItsOwnThread() {
		if (System.getProperty(ReactorNetty.IO_SELECT_COUNT) == null) {
			System.setProperty(ReactorNetty.IO_SELECT_COUNT, "1");
		}
	}

}
