package ai.dwell.runtime.serve.container;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;

/**
 * An implementation of an OSGi interface (Bundle, BundleContext, BundleWiring, ...) for the standalone container's
 * framework, answering the methods the container calls by name; any other method fails, naming itself, so that a
 * container that comes to need more fails loudly rather than getting a default.
 */
public final class OsgiStub implements InvocationHandler {

    /** One answer to a call, from its arguments (an empty array when there are none). */
    @FunctionalInterface
    public interface Answer {
        Object answer(Object[] args) throws Exception;
    }

    private final Class<?> type;
    private final Map<String, Answer> answers;

    private OsgiStub(Class<?> type, Map<String, Answer> answers) {
        this.type = type;
        this.answers = Map.copyOf(answers);
    }

    public static <T> T of(Class<T> type, Map<String, Answer> answers) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] { type }, new OsgiStub(type, answers)));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        Object[] arguments = args == null ? new Object[0] : args;
        switch (method.getName()) {
            case "equals": if (arguments.length == 1 && method.getParameterTypes()[0] == Object.class) return proxy == arguments[0]; break;
            case "hashCode": if (arguments.length == 0) return System.identityHashCode(proxy); break;
            case "toString": if (arguments.length == 0) return type.getSimpleName() + answerOf("getSymbolicName", proxy); break;
        }
        Answer answer = answers.get(method.getName());
        if (answer == null)
            throw new UnsupportedOperationException(type.getSimpleName() + "." + method.getName() +
                                                    " is not supported by the runtime's standalone container");
        try {
            return answer.answer(arguments);
        }
        catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private String answerOf(String method, Object proxy) {
        Answer answer = answers.get(method);
        if (answer == null) return "@" + Integer.toHexString(System.identityHashCode(proxy));
        try {
            return "[" + answer.answer(new Object[0]) + "]";
        }
        catch (Exception e) {
            return "";
        }
    }

}
