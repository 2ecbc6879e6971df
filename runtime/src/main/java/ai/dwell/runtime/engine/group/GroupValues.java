package ai.dwell.runtime.engine.group;

import ai.dwell.runtime.index.DocumentIndex;
import ai.dwell.runtime.index.MultiValueAttribute;
import ai.dwell.runtime.rank.UnsupportedFeatureException;
import com.yahoo.searchlib.expression.AddFunctionNode;
import com.yahoo.searchlib.expression.ArrayAtLookupNode;
import com.yahoo.searchlib.expression.AttributeMapLookupNode;
import com.yahoo.searchlib.expression.AttributeNode;
import com.yahoo.searchlib.expression.CatFunctionNode;
import com.yahoo.searchlib.expression.ConstantNode;
import com.yahoo.searchlib.expression.DivideFunctionNode;
import com.yahoo.searchlib.expression.ExpressionNode;
import com.yahoo.searchlib.expression.FloatResultNode;
import com.yahoo.searchlib.expression.IntegerResultNode;
import com.yahoo.searchlib.expression.InterpolatedLookupNode;
import com.yahoo.searchlib.expression.MD5BitFunctionNode;
import com.yahoo.searchlib.expression.MathFunctionNode;
import com.yahoo.searchlib.expression.MaxFunctionNode;
import com.yahoo.searchlib.expression.MinFunctionNode;
import com.yahoo.searchlib.expression.ModuloFunctionNode;
import com.yahoo.searchlib.expression.MultiArgFunctionNode;
import com.yahoo.searchlib.expression.MultiplyFunctionNode;
import com.yahoo.searchlib.expression.NegateFunctionNode;
import com.yahoo.searchlib.expression.NormalizeSubjectFunctionNode;
import com.yahoo.searchlib.expression.RelevanceNode;
import com.yahoo.searchlib.expression.ResultNode;
import com.yahoo.searchlib.expression.StrCatFunctionNode;
import com.yahoo.searchlib.expression.StrLenFunctionNode;
import com.yahoo.searchlib.expression.StringResultNode;
import com.yahoo.searchlib.expression.TimeStampFunctionNode;
import com.yahoo.searchlib.expression.ToFloatFunctionNode;
import com.yahoo.searchlib.expression.ToIntFunctionNode;
import com.yahoo.searchlib.expression.ToStringFunctionNode;
import com.yahoo.searchlib.expression.UcaFunctionNode;
import com.yahoo.searchlib.expression.ZCurveFunctionNode;
import com.yahoo.vespa.config.search.AttributesConfig;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Compiles the expressions of a grouping request (searchlib's ExpressionNode trees, as the container's
 * ExpressionConverter builds them) over one index's attributes. What this engine does not compute fails here,
 * naming the function, before any document is grouped.
 */
final class GroupValues {

    private final DocumentIndex index;
    /** Structs (or multi-value attributes) bound to a level's current element, as proton's CurrentIndexSetup. */
    private final Map<String, LeafValues.ElementIndex> bound = new HashMap<>();

    GroupValues(DocumentIndex index) { this.index = index; }

    /**
     * A level's group-by expression: as {@link #compile}, except that a multi-value attribute (unbound) is allowed as
     * the whole expression, giving the level one group per element (an {@link LeafValues.Element} reading the
     * element at its index, which the level sets). Struct fields of the same struct in the levels below, their
     * filters and aggregators then read the element at that index, as proton binds the struct to the level's
     * current index.
     */
    GroupValue compileLevel(ExpressionNode node) {
        if (node.getClass() == AttributeNode.class) {
            String name = ((AttributeNode) node).getAttributeName();
            if (multiValue(name) && ! bound.containsKey(structOf(name))) {
                LeafValues.ElementIndex index = new LeafValues.ElementIndex();
                GroupValue element = element(name, index, true);
                bound.put(structOf(name), index);
                return element;
            }
        }
        return compile(node);
    }

    GroupValue compile(ExpressionNode node) {
        if (node instanceof AttributeMapLookupNode lookup) return mapLookup(lookup);
        if (node.getClass() == AttributeNode.class) return attribute(((AttributeNode) node).getAttributeName());
        if (node instanceof ConstantNode constant) return constant(constant.getValue());
        if (node instanceof RelevanceNode) return new LeafValues.Relevance();
        if (node instanceof AddFunctionNode add) return arithmetic(ArithmeticValue.Operation.ADD, add);
        if (node instanceof MultiplyFunctionNode multiply) return arithmetic(ArithmeticValue.Operation.MULTIPLY, multiply);
        if (node instanceof DivideFunctionNode divide) return arithmetic(ArithmeticValue.Operation.DIVIDE, divide);
        if (node instanceof ModuloFunctionNode modulo) return arithmetic(ArithmeticValue.Operation.MODULO, modulo);
        if (node instanceof MinFunctionNode min) return arithmetic(ArithmeticValue.Operation.MIN, min);
        if (node instanceof MaxFunctionNode max) return arithmetic(ArithmeticValue.Operation.MAX, max);
        if (node instanceof NegateFunctionNode negate) {
            GroupValue argument = numeric(compile(negate.getArg(0)), "neg");
            return new FunctionValues.Negate(argument);
        }
        if (node instanceof MathFunctionNode math) return math(math);
        if (node instanceof ZCurveFunctionNode zcurve)
            return new LookupValues.ZCurveCoordinate(compile(zcurve.getArg(0)), zcurve.getDimension() == ZCurveFunctionNode.Dimension.Y);
        if (node instanceof InterpolatedLookupNode lookup) return interpolatedLookup(lookup);
        if (node instanceof ArrayAtLookupNode lookup) return arrayAt(lookup);
        if (node instanceof TimeStampFunctionNode time) return time(time);
        if (node instanceof ToStringFunctionNode toString) return new FunctionValues.ToStringValue(notRaw(compile(toString.getArg(0)), "tostring"));
        if (node instanceof ToIntFunctionNode toInt) return new FunctionValues.ToIntegerValue(compile(toInt.getArg(0)));
        if (node instanceof ToFloatFunctionNode toFloat) return new FunctionValues.ToFloatValue(compile(toFloat.getArg(0)));
        if (node instanceof StrLenFunctionNode strlen) return new FunctionValues.StringLength(notRaw(compile(strlen.getArg(0)), "strlen"));
        if (node instanceof NormalizeSubjectFunctionNode subject)
            return new FunctionValues.NormalizedSubject(notRaw(compile(subject.getArg(0)), "normalizesubject"));
        if (node instanceof UcaFunctionNode uca)
            return new BytesValues.CollationKey(notRaw(compile(uca.getArg(0)), "uca"), String.valueOf(Members.get(uca, "locale")),
                                                String.valueOf(Members.get(uca, "strength")));
        if (node instanceof CatFunctionNode cat) {
            List<BytesValues.Part> parts = new ArrayList<>(cat.getNumArgs());
            for (int i = 0; i < cat.getNumArgs(); i++) parts.add(part(cat.getArg(i), "cat"));
            return new BytesValues.Concatenation(parts);
        }
        if (node instanceof MD5BitFunctionNode md5)
            return new BytesValues.Md5(part(md5.getArg(0), "md5"), (md5.getNumBits() + 7) / 8);
        if (node instanceof StrCatFunctionNode strcat) {
            List<GroupValue> arguments = arguments(strcat);
            for (GroupValue argument : arguments) {
                notRaw(argument, "strcat");
                if (argument.type() == GroupValue.Type.FLOAT)
                    throw new UnsupportedFeatureException("Grouping function strcat of a float is not supported by this content engine");
            }
            return new FunctionValues.StringConcatenation(arguments.toArray(GroupValue[]::new));
        }
        throw new UnsupportedFeatureException("Grouping expression " + node.getClass().getSimpleName() + " is not supported by this content engine");
    }

    /**
     * An aggregator's expression that is a whole multi-value attribute not bound to a level's element (sum(sizes)):
     * proton aggregates each of the document's elements (its ResultNodeVector flattened into sum, avg, min, max,
     * xor and stddev). Null for any other expression. Numbers only: proton's flattening of a string array leaves a
     * sum, min or max unchanged while avg counts its elements, which is refused by name, as is a weighted set of
     * floats, whose element order (and so the float sum's rounding) proton does not define.
     */
    LeafValues.Element flattened(ExpressionNode node) {
        if (node.getClass() != AttributeNode.class) return null;
        String name = ((AttributeNode) node).getAttributeName();
        if ( ! multiValue(name) || bound.containsKey(structOf(name))) return null;
        AttributesConfig.Attribute config = config(name);
        if ( ! numeric(config.datatype()))
            throw new UnsupportedFeatureException("Grouping aggregate of multi-value attribute '" + name + "' of " + config.datatype() +
                                                  " is not supported by this content engine (only of numbers)");
        if (config.collectiontype() == AttributesConfig.Attribute.Collectiontype.WEIGHTEDSET
            && (config.datatype() == AttributesConfig.Attribute.Datatype.FLOAT || config.datatype() == AttributesConfig.Attribute.Datatype.DOUBLE))
            throw new UnsupportedFeatureException("Grouping aggregate of multi-value attribute '" + name + "', a weighted set of floats, " +
                                                  "is not supported by this content engine");
        return (LeafValues.Element) element(name, new LeafValues.ElementIndex(), true);
    }

    /** The value of istrue(): a bool attribute, as an integer 0 or 1 (proton's BoolResultNode); anything else is refused. */
    GroupValue compileBool(ExpressionNode node) {
        if (node.getClass() == AttributeNode.class) {
            String name = ((AttributeNode) node).getAttributeName();
            AttributesConfig.Attribute config = config(name);
            if (config.datatype() == AttributesConfig.Attribute.Datatype.BOOL && config.collectiontype() == AttributesConfig.Attribute.Collectiontype.SINGLE)
                return new LeafValues.IntegerAttribute(index.attribute(name).orElseThrow());
        }
        throw new IllegalArgumentException("istrue() requires input to be type bool, got " + node.getClass().getSimpleName() +
                                           (node instanceof AttributeNode attribute ? " '" + attribute.getAttributeName() + "'" : ""));
    }

    /** The struct a multi-value attribute belongs to, as proton resolves it: the name before the last dot, or the name. */
    private static String structOf(String name) {
        int dot = name.lastIndexOf('.');
        return dot < 0 ? name : name.substring(0, dot);
    }

    private AttributesConfig.Attribute config(String name) {
        return index.attributeConfig(name)
                .orElseThrow(() -> new IllegalArgumentException("No attribute '" + name + "' to group on in '" + index.name() + "'"));
    }

    private boolean multiValue(String name) {
        return config(name).collectiontype() != AttributesConfig.Attribute.Collectiontype.SINGLE;
    }

    private GroupValue element(String name, LeafValues.ElementIndex elementIndex, boolean iterated) {
        if ( ! (index.attribute(name).orElseThrow() instanceof MultiValueAttribute attribute))
            throw new UnsupportedFeatureException("Grouping on multi-value attribute '" + name + "' of this kind is not supported by this content engine");
        return new LeafValues.Element(attribute, elementIndex, type(attribute), undefinedInteger(name), iterated);
    }

    /** The undefined value of an integer attribute of the attribute's width, as proton's getUndefined. */
    private long undefinedInteger(String name) {
        return switch (config(name).datatype()) {
            case INT8 -> Byte.MIN_VALUE;
            case INT16 -> Short.MIN_VALUE;
            case INT32 -> Integer.MIN_VALUE;
            default -> Long.MIN_VALUE;
        };
    }

    private static GroupValue.Type type(MultiValueAttribute attribute) {
        return switch (attribute.elements()) {
            case STRING -> GroupValue.Type.STRING;
            case INTEGER -> GroupValue.Type.INTEGER;
            case FLOATING -> GroupValue.Type.FLOAT;
        };
    }

    /**
     * attr{"key"} (and attr{keyattr}): the value at the index of the key's element in the map's key attribute, as
     * proton's AttributeMapLookupNode; a missing key gives the value type's undefined value ("" for strings).
     */
    private GroupValue mapLookup(AttributeMapLookupNode node) {
        String keyName = String.valueOf(Members.get(node, "keyAttribute"));
        String valueName = String.valueOf(Members.get(node, "valueAttribute"));
        String key = String.valueOf(Members.get(node, "key"));
        String keySource = String.valueOf(Members.get(node, "keySourceAttribute"));
        if ( ! multiValue(keyName) || ! multiValue(valueName)
             || ! (index.attribute(keyName).orElseThrow() instanceof MultiValueAttribute keys)
             || ! (index.attribute(valueName).orElseThrow() instanceof MultiValueAttribute values))
            throw new IllegalArgumentException("Map lookup " + node.getAttributeName() + " needs the map's key and value attributes, '" +
                                               keyName + "' and '" + valueName + "', as arrays");
        GroupValue source = keySource.isEmpty() ? null : attribute(keySource);
        if (source != null && source.type() != type(keys))
            throw new UnsupportedFeatureException("Map lookup " + node.getAttributeName() + " with a key attribute of another type than the map's keys is not supported by this content engine");
        return new LeafValues.MapLookup(keys, values, type(values), undefinedInteger(valueName), key, source);
    }

    /**
     * interpolatedlookup(attr, x): attr a numeric array (a single-value numeric attribute is proton's array of one
     * element, whose lookup is always 0). As proton's InterpolatedLookup, a pseudo-attribute, it reads the whole array
     * even where a level binds its struct, and x is compiled with nothing bound.
     */
    private GroupValue interpolatedLookup(InterpolatedLookupNode node) {
        String name = node.getAttributeName();
        AttributesConfig.Attribute config = config(name);
        if ( ! numeric(config.datatype()))
            throw new UnsupportedFeatureException("Grouping function interpolatedlookup of " + config.datatype() + " attribute '" + name +
                                                  "' is not supported by this content engine (only numeric arrays)");
        GroupValue lookup = unbound(node.getArg(0));
        if (config.collectiontype() == AttributesConfig.Attribute.Collectiontype.SINGLE) return new LeafValues.FloatConstant(0);
        if (config.collectiontype() != AttributesConfig.Attribute.Collectiontype.ARRAY
            || ! (index.attribute(name).orElseThrow() instanceof MultiValueAttribute array))
            throw new UnsupportedFeatureException("Grouping function interpolatedlookup of " + config.collectiontype() + " attribute '" + name +
                                                  "' is not supported by this content engine (only numeric arrays)");
        return new LookupValues.InterpolatedLookup(array, lookup);
    }

    /**
     * array.at(attr, i): attr an array of numbers or strings (proton requires a multi-value attribute; a weighted set,
     * whose element order proton does not define, is refused). As proton's ArrayAtLookup, a pseudo-attribute with its
     * own current index, it is never bound to a level's element, and i is compiled with nothing bound.
     */
    private GroupValue arrayAt(ArrayAtLookupNode node) {
        String name = node.getAttributeName();
        AttributesConfig.Attribute config = config(name);
        if (config.collectiontype() != AttributesConfig.Attribute.Collectiontype.ARRAY
            || ! (index.attribute(name).orElseThrow() instanceof MultiValueAttribute array))
            throw new UnsupportedFeatureException("Grouping function array.at of " + config.collectiontype() + " attribute '" + name +
                                                  "' is not supported by this content engine (only arrays)");
        return new LookupValues.ArrayAt(array, type(array), unbound(node.getArg(0)));
    }

    /** An expression compiled with no struct bound to a level's element (as proton leaves a pseudo-attribute's arguments). */
    private GroupValue unbound(ExpressionNode node) {
        Map<String, LeafValues.ElementIndex> saved = new HashMap<>(bound);
        bound.clear();
        try {
            return compile(node);
        }
        finally {
            bound.putAll(saved);
        }
    }

    private static boolean numeric(AttributesConfig.Attribute.Datatype.Enum datatype) {
        return switch (datatype) {
            case INT8, INT16, INT32, INT64, FLOAT, DOUBLE -> true;
            default -> false;
        };
    }

    private GroupValue attribute(String name) {
        AttributesConfig.Attribute config = config(name);
        if (config.collectiontype() != AttributesConfig.Attribute.Collectiontype.SINGLE) {
            LeafValues.ElementIndex elementIndex = bound.get(structOf(name));
            if (elementIndex != null) return element(name, elementIndex, false);
            throw new UnsupportedFeatureException("Grouping on multi-value attribute '" + name + "' other than as a level's whole group-by expression " +
                                                  "(or a struct field of a struct a level above groups by) is not supported by this content engine");
        }
        var attribute = index.attribute(name).orElseThrow();
        return switch (config.datatype()) {
            case INT8, INT16, INT32, INT64 -> new LeafValues.IntegerAttribute(attribute);
            case FLOAT, DOUBLE -> new LeafValues.FloatAttribute(attribute);
            case STRING -> new LeafValues.StringAttribute(attribute);
            default -> throw new UnsupportedFeatureException("Grouping on " + config.datatype() + " attribute '" + name + "' is not supported by this content engine");
        };
    }

    private static GroupValue constant(ResultNode value) {
        if (value instanceof IntegerResultNode integer) return new LeafValues.IntegerConstant(integer.getInteger());
        if (value instanceof FloatResultNode floating) return new LeafValues.FloatConstant(floating.getFloat());
        if (value instanceof StringResultNode string) return new LeafValues.StringConstant(string.getString());
        throw new UnsupportedFeatureException("Grouping constant " + value.getClass().getSimpleName() + " is not supported by this content engine");
    }

    private GroupValue arithmetic(ArithmeticValue.Operation operation, MultiArgFunctionNode node) {
        List<GroupValue> arguments = arguments(node);
        if (arguments.size() < 2) // one argument: proton flattens a multi-value attribute, which is refused above
            throw new UnsupportedFeatureException("Grouping function " + node.getClass().getSimpleName() + " of one argument is not supported by this content engine");
        ArithmeticValue value = new ArithmeticValue(operation, arguments);
        numeric(value, node.getClass().getSimpleName());
        return value;
    }

    private GroupValue math(MathFunctionNode node) {
        String function = String.valueOf(Members.get(node, "function"));
        FunctionValues.MathFunction.Function kind = FunctionValues.MathFunction.Function.valueOf(function);
        List<GroupValue> arguments = arguments(node);
        int wanted = kind == FunctionValues.MathFunction.Function.POW || kind == FunctionValues.MathFunction.Function.HYPOT ? 2 : 1;
        if (arguments.size() != wanted)
            throw new IllegalArgumentException("math." + function.toLowerCase() + " takes " + wanted + " arguments, got " + arguments.size());
        return new FunctionValues.MathFunction(kind, arguments.get(0), wanted == 2 ? arguments.get(1) : null);
    }

    private GroupValue time(TimeStampFunctionNode node) {
        if ( ! node.isGmt())
            throw new UnsupportedFeatureException("Grouping function time in the content node's local time zone is not supported by this content engine: only UTC");
        FunctionValues.TimePart.Part part = switch (node.getTimePart()) {
            case Year -> FunctionValues.TimePart.Part.YEAR;
            case Month -> FunctionValues.TimePart.Part.MONTH;
            case MonthDay -> FunctionValues.TimePart.Part.MONTH_DAY;
            case WeekDay -> FunctionValues.TimePart.Part.WEEK_DAY;
            case Hour -> FunctionValues.TimePart.Part.HOUR;
            case Minute -> FunctionValues.TimePart.Part.MINUTE;
            case Second -> FunctionValues.TimePart.Part.SECOND;
            case YearDay -> FunctionValues.TimePart.Part.YEAR_DAY;
            case IsDST -> FunctionValues.TimePart.Part.IS_DST;
        };
        return new FunctionValues.TimePart(compile(node.getArg(0)), part);
    }

    private List<GroupValue> arguments(MultiArgFunctionNode node) {
        List<GroupValue> arguments = new ArrayList<>(node.getNumArgs());
        for (int i = 0; i < node.getNumArgs(); i++) arguments.add(compile(node.getArg(i)));
        return arguments;
    }

    /**
     * An argument of cat or md5 as the bytes proton's CatSerializer writes for it, its types kept accurate as there:
     * a string's UTF-8 bytes, raw bytes as they are, an integer attribute big-endian in its own width (1, 2, 4 or 8
     * bytes), an integer constant or an integer function's result in 8, a float in 8 (a double, big-endian).
     * Arithmetic, whose accurate result type this engine does not track, is refused.
     */
    private BytesValues.Part part(ExpressionNode node, String function) {
        GroupValue value = compile(node);
        return switch (value.type()) {
            case STRING -> BytesValues.Part.string(value);
            case RAW -> BytesValues.Part.raw(value);
            case FLOAT -> BytesValues.Part.integer(new FunctionValues.FloatBits(value), 8);
            case INTEGER -> {
                if (node.getClass() == AttributeNode.class && value instanceof LeafValues.IntegerAttribute) {
                    int width = switch (config(((AttributeNode) node).getAttributeName()).datatype()) {
                        case INT8 -> 1;
                        case INT16 -> 2;
                        case INT32 -> 4;
                        default -> 8;
                    };
                    yield BytesValues.Part.integer(value, width);
                }
                if (value instanceof ArithmeticValue || value instanceof LeafValues.Element || value instanceof LeafValues.MapLookup
                    || value instanceof LookupValues.ArrayAt)
                    throw new UnsupportedFeatureException("Grouping function " + function + " of " + node.getClass().getSimpleName() +
                                                          " (an integer of an accurate type this engine does not track) is not supported by this content engine");
                yield BytesValues.Part.integer(value, 8);
            }
        };
    }

    private static GroupValue notRaw(GroupValue value, String function) {
        if (value.type() == GroupValue.Type.RAW)
            throw new UnsupportedFeatureException("Grouping function " + function + " of a raw value (cat, md5) is not supported by this content engine");
        return value;
    }

    private static GroupValue numeric(GroupValue value, String function) {
        notRaw(value, function);
        if (value.type() == GroupValue.Type.STRING)
            throw new UnsupportedFeatureException("Grouping function " + function + " of strings is not supported by this content engine");
        return value;
    }

}
