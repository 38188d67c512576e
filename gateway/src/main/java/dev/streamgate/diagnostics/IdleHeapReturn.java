package dev.streamgate.diagnostics;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Lets an idle node give its unused heap back to the operating system.
 * <p>
 * The JVM sizes its heap for the machine (at most a quarter of its memory) and G1 keeps
 * what it once committed: a standalone gateway that created 10,000 topics held about 1
 * GiB of committed heap around 500 MiB of live objects long after the work was done. G1
 * can return it (JEP 346) when told to collect periodically while idle and to keep less
 * of the heap free after a collection; both settings can be changed while the JVM runs. A
 * setting given on the command line (or by any other means than the default) is left as
 * it is.
 */
final class IdleHeapReturn {

	private static final Log logger = LogFactory.getLog(IdleHeapReturn.class);

	private IdleHeapReturn() {
	}

	/**
	 * Applies the properties to the running JVM.
	 * @param properties what to apply
	 * @return the settings changed, name to value, in the order they were set
	 */
	static Map<String, String> apply(JvmProperties properties) {
		Map<String, String> changed = new LinkedHashMap<>();
		if (properties.returnIdleHeapAfter().isZero() || !g1()) {
			return changed;
		}
		HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
		int maxFree = properties.maxFreeHeapPercent();
		// The JVM refuses a maximum below the minimum: the minimum goes first.
		if (atDefault(vm, "MinHeapFreeRatio") && atDefault(vm, "MaxHeapFreeRatio")) {
			int minFree = Math.min(Integer.parseInt(vm.getVMOption("MinHeapFreeRatio").getValue()), maxFree / 2);
			set(vm, "MinHeapFreeRatio", Integer.toString(minFree), changed);
			set(vm, "MaxHeapFreeRatio", Integer.toString(maxFree), changed);
		}
		if (atDefault(vm, "G1PeriodicGCInterval")) {
			set(vm, "G1PeriodicGCInterval", Long.toString(properties.returnIdleHeapAfter().toMillis()), changed);
		}
		return changed;
	}

	private static boolean g1() {
		for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
			if (collector.getName().startsWith("G1")) {
				return true;
			}
		}
		return false;
	}

	private static boolean atDefault(HotSpotDiagnosticMXBean vm, String name) {
		VMOption option = vm.getVMOption(name);
		return option.isWriteable() && option.getOrigin() == VMOption.Origin.DEFAULT;
	}

	private static void set(HotSpotDiagnosticMXBean vm, String name, String value, Map<String, String> changed) {
		try {
			vm.setVMOption(name, value);
			changed.put(name, value);
		}
		catch (IllegalArgumentException ex) {
			logger.warn("The JVM refused " + name + "=" + value + ": " + ex.getMessage());
		}
	}

}
