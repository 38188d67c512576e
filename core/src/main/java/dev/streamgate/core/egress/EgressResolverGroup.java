package dev.streamgate.core.egress;

import java.net.SocketAddress;
import java.util.List;

import io.netty.resolver.AddressResolver;
import io.netty.resolver.AddressResolverGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.Promise;

/**
 * Name resolution that drops the addresses the {@link EgressGuard} refuses, and fails for
 * a host left with none. Addresses written as IP literals go through it too: they are
 * never "already resolved" here.
 */
final class EgressResolverGroup extends AddressResolverGroup<SocketAddress> {

	private final AddressResolverGroup<?> delegate;

	private final EgressGuard guard;

	EgressResolverGroup(AddressResolverGroup<?> delegate, EgressGuard guard) {
		this.delegate = delegate;
		this.guard = guard;
	}

	@Override
	@SuppressWarnings("unchecked")
	protected AddressResolver<SocketAddress> newResolver(EventExecutor executor) {
		AddressResolver<SocketAddress> inner = (AddressResolver<SocketAddress>) this.delegate.getResolver(executor);
		return new GuardedResolver(executor, inner, this.guard);
	}

	private record GuardedResolver(EventExecutor executor, AddressResolver<SocketAddress> inner,
			EgressGuard guard) implements AddressResolver<SocketAddress> {

		@Override
		public boolean isSupported(SocketAddress address) {
			return this.inner.isSupported(address);
		}

		@Override
		public boolean isResolved(SocketAddress address) {
			return false;
		}

		@Override
		public Future<SocketAddress> resolve(SocketAddress address) {
			return resolve(address, this.executor.newPromise());
		}

		@Override
		public Future<SocketAddress> resolve(SocketAddress address, Promise<SocketAddress> promise) {
			resolveAll(address).addListener((Future<List<SocketAddress>> all) -> {
				if (all.isSuccess()) {
					promise.trySuccess(all.getNow().get(0));
				}
				else {
					promise.tryFailure(all.cause());
				}
			});
			return promise;
		}

		@Override
		public Future<List<SocketAddress>> resolveAll(SocketAddress address) {
			return resolveAll(address, this.executor.newPromise());
		}

		@Override
		public Future<List<SocketAddress>> resolveAll(SocketAddress address, Promise<List<SocketAddress>> promise) {
			this.inner.resolveAll(address).addListener((Future<List<SocketAddress>> resolved) -> {
				if (!resolved.isSuccess()) {
					promise.tryFailure(resolved.cause());
					return;
				}
				try {
					List<SocketAddress> permitted = this.guard.permitted(resolved.getNow());
					if (permitted.isEmpty()) {
						promise.tryFailure(new EgressRefusedException(address + " resolves to no address"));
					}
					else {
						promise.trySuccess(permitted);
					}
				}
				catch (EgressRefusedException ex) {
					promise.tryFailure(ex);
				}
			});
			return promise;
		}

		@Override
		public void close() {
			this.inner.close();
		}

	}

}
