package ai.dwell.runtime.serve.documentapi;

import com.yahoo.document.DocumentTypeManager;
import com.yahoo.document.select.DocumentSelector;
import com.yahoo.document.select.Visitor;
import com.yahoo.document.select.parser.ParseException;
import com.yahoo.document.select.rule.ArithmeticNode;
import com.yahoo.document.select.rule.AttributeNode;
import com.yahoo.document.select.rule.ComparisonNode;
import com.yahoo.document.select.rule.DocumentNode;
import com.yahoo.document.select.rule.DocumentTypeNode;
import com.yahoo.document.select.rule.EmbracedNode;
import com.yahoo.document.select.rule.IdNode;
import com.yahoo.document.select.rule.LiteralNode;
import com.yahoo.document.select.rule.LogicNode;
import com.yahoo.document.select.rule.NegationNode;
import com.yahoo.document.select.rule.NowNode;
import com.yahoo.document.select.rule.VariableNode;

import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Refuses a document selection that names a document type the application does not have, as
 * Vespa's content nodes do ("Document type 'x' not found", which /document/v1 answers with 400).
 * Vespa's Java selection evaluator would just match nothing.
 */
final class SelectionTypes {

    private SelectionTypes() {}

    static void requireKnown(String selection, DocumentTypeManager types) throws ParseException {
        if (selection == null || selection.isBlank()) return;
        Set<String> named = new LinkedHashSet<>();
        new DocumentSelector(selection).visit(new TypeCollector(named));
        for (String type : named)
            if (types.getDocumentType(type) == null)
                throw new ParseException("Document type '" + type + "' not found");
    }

    /** Collects the document types a selection names, walking the whole expression tree. */
    private record TypeCollector(Set<String> types) implements Visitor {
        @Override public void visit(ArithmeticNode node) { node.getItems().forEach(item -> item.getNode().accept(this)); }
        @Override public void visit(AttributeNode node) { node.getValue().accept(this); }
        @Override public void visit(ComparisonNode node) { node.getLHS().accept(this); node.getRHS().accept(this); }
        @Override public void visit(DocumentNode node) { types.add(node.getType()); }
        @Override public void visit(DocumentTypeNode node) { types.add(node.getType()); }
        @Override public void visit(EmbracedNode node) { node.getNode().accept(this); }
        @Override public void visit(IdNode node) {}
        @Override public void visit(LiteralNode node) {}
        @Override public void visit(LogicNode node) { node.getItems().forEach(item -> item.getNode().accept(this)); }
        @Override public void visit(NegationNode node) { node.getNode().accept(this); }
        @Override public void visit(NowNode node) {}
        @Override public void visit(VariableNode node) {}
    }

}
