package ai.dwell.runtime.engine.group;

import com.yahoo.vespa.objects.Identifiable;
import com.yahoo.vespa.objects.ObjectVisitor;

/** Reads a member that a searchlib object shows only to visitors (e.g. MathFunctionNode's function, a bucket's limits). */
final class Members {

    private Members() {}

    static Object get(Identifiable object, String name) {
        Object[] found = new Object[1];
        object.visitMembers(new ObjectVisitor() {
            private int depth = 0;
            @Override public void openStruct(String n, String type) { depth++; }
            @Override public void closeStruct() { depth--; }
            @Override public void visit(String n, Object value) {
                if (depth == 0 && n.equals(name) && found[0] == null) found[0] = value;
            }
        });
        if (found[0] == null) throw new IllegalStateException(object.getClass().getSimpleName() + " shows no member '" + name + "'");
        return found[0];
    }

}
