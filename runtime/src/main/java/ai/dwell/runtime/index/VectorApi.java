package ai.dwell.runtime.index;

import java.util.logging.Logger;

/**
 * Chooses between a class that uses the JDK's vector API and its scalar form: the former where the JVM runs with
 * --add-modules jdk.incubator.vector (./dwell start and the tests do), the latter otherwise, or, with a warning, where
 * the former cannot be loaded.
 */
public final class VectorApi {

    private static final Logger log = Logger.getLogger(VectorApi.class.getName());

    /** Makes the form that uses the vector API; called only where the JVM has the module. */
    public interface Loader<T> {
        T load() throws ReflectiveOperationException;
    }

    private VectorApi() {}

    /** The vector API's form, loaded by the given loader, if the JVM has the module and it loads, else the scalar one. */
    public static <T> T orScalar(Loader<T> simd, T scalar, String what) {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()) {
            try {
                return simd.load();
            }
            catch (ReflectiveOperationException | LinkageError e) {
                log.warning("The vector API is present but not usable (" + e + "); " + what + " runs scalar");
            }
        }
        return scalar;
    }

}
