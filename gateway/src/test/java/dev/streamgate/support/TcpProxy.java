package dev.streamgate.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a loopback port for tests: counts the connections it accepts and cuts
 * them all on demand (both sides see a reset, as when a network path fails), while it
 * keeps accepting new ones.
 */
public final class TcpProxy implements AutoCloseable {

	private final ServerSocket server;

	private final InetSocketAddress target;

	private final List<Socket> open = new CopyOnWriteArrayList<>();

	private final AtomicInteger accepted = new AtomicInteger();

	private TcpProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
		Thread acceptor = new Thread(this::accept, "tcp-proxy-" + this.server.getLocalPort());
		acceptor.setDaemon(true);
		acceptor.start();
	}

	/**
	 * Starts a proxy to a port of this machine.
	 * @param port the target port on the loopback address
	 * @return the proxy
	 * @throws IOException when no port can be bound
	 */
	public static TcpProxy to(int port) throws IOException {
		return new TcpProxy(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
	}

	public int port() {
		return this.server.getLocalPort();
	}

	/**
	 * Connections accepted since the start.
	 * @return how many
	 */
	public int accepted() {
		return this.accepted.get();
	}

	/** Cuts every open connection at once, with a reset on both sides. */
	public void cut() {
		for (Socket socket : this.open) {
			try {
				socket.setSoLinger(true, 0);
				socket.close();
			}
			catch (IOException ex) {
				// Closed already.
			}
		}
		this.open.clear();
	}

	private void accept() {
		while (!this.server.isClosed()) {
			try {
				Socket client = this.server.accept();
				Socket upstream = new Socket();
				upstream.connect(this.target, 5000);
				this.accepted.incrementAndGet();
				this.open.add(client);
				this.open.add(upstream);
				pump(client, upstream);
				pump(upstream, client);
			}
			catch (IOException ex) {
				// The server socket closed, or the target refused: the client sees a
				// close.
			}
		}
	}

	private void pump(Socket from, Socket to) {
		Thread thread = new Thread(() -> {
			byte[] buffer = new byte[16 * 1024];
			try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
				int read;
				while ((read = in.read(buffer)) >= 0) {
					out.write(buffer, 0, read);
					out.flush();
				}
			}
			catch (IOException ex) {
				// Cut or closed.
			}
			finally {
				close(from);
				close(to);
			}
		}, "tcp-proxy-pump");
		thread.setDaemon(true);
		thread.start();
	}

	private void close(Socket socket) {
		this.open.remove(socket);
		try {
			socket.close();
		}
		catch (IOException ex) {
			// Closed already.
		}
	}

	@Override
	public void close() throws IOException {
		this.server.close();
		cut();
	}

}
