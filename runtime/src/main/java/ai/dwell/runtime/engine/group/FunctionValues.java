package ai.dwell.runtime.engine.group;

import java.nio.charset.StandardCharsets;

/** The grouping language's functions of one or more values that are not arithmetic, as proton's nodes compute them. */
final class FunctionValues {

    private FunctionValues() {}

    /** neg(a): the value negated in its own type (integer or float). */
    static final class Negate extends GroupValue {
        private final GroupValue argument;
        Negate(GroupValue argument) { super(argument.type()); this.argument = argument; }
        @Override public long integer(int lid, double rank) {
            return type() == Type.INTEGER ? -argument.integer(lid, rank) : super.integer(lid, rank);
        }
        @Override public double floating(int lid, double rank) {
            return type() == Type.FLOAT ? -argument.floating(lid, rank) : super.floating(lid, rank);
        }
    }

    /** math.*: a float of the arguments as floats, as proton's MathFunctionNode (pow and hypot take two). */
    static final class MathFunction extends GroupValue {
        enum Function { EXP, POW, LOG, LOG1P, LOG10, SIN, ASIN, COS, ACOS, TAN, ATAN, SQRT, SINH, ASINH, COSH, ACOSH, TANH, ATANH, CBRT, HYPOT, FLOOR }
        private final Function function;
        private final GroupValue first;
        private final GroupValue second;
        MathFunction(Function function, GroupValue first, GroupValue second) {
            super(Type.FLOAT);
            this.function = function;
            this.first = first;
            this.second = second;
        }
        @Override public double floating(int lid, double rank) {
            double a = first.floating(lid, rank);
            return switch (function) {
                case EXP -> Math.exp(a);
                case POW -> Math.pow(a, second.floating(lid, rank));
                case LOG -> Math.log(a);
                case LOG1P -> Math.log1p(a);
                case LOG10 -> Math.log10(a);
                case SIN -> Math.sin(a);
                case ASIN -> Math.asin(a);
                case COS -> Math.cos(a);
                case ACOS -> Math.acos(a);
                case TAN -> Math.tan(a);
                case ATAN -> Math.atan(a);
                case SQRT -> Math.sqrt(a);
                case SINH -> Math.sinh(a);
                case ASINH -> Double.isInfinite(a) ? a : Math.log(a + Math.sqrt(a * a + 1));
                case COSH -> Math.cosh(a);
                case ACOSH -> Math.log(a + Math.sqrt(a * a - 1));
                case TANH -> Math.tanh(a);
                case ATANH -> 0.5 * Math.log((1 + a) / (1 - a));
                case CBRT -> Math.cbrt(a);
                case HYPOT -> Math.hypot(a, second.floating(lid, rank));
                case FLOOR -> Math.floor(a);
            };
        }
    }

    /**
     * time.year, time.monthofyear (1-12), time.dayofmonth (1-31), time.dayofweek (0 is Sunday), time.hourofday,
     * time.minuteofhour, time.secondofminute, time.dayofyear (0-365) and the daylight saving flag (0) of seconds
     * since 1970 in UTC, as gmtime gives them to proton's TimeStampFunctionNode. (time.date is the container's
     * strcat of year, month and day.) Computed without allocating.
     */
    static final class TimePart extends GroupValue {
        enum Part { YEAR, MONTH, MONTH_DAY, WEEK_DAY, HOUR, MINUTE, SECOND, YEAR_DAY, IS_DST }
        private final GroupValue seconds;
        private final Part part;
        TimePart(GroupValue seconds, Part part) { super(Type.INTEGER); this.seconds = seconds; this.part = part; }
        @Override public long integer(int lid, double rank) {
            long time = seconds.integer(lid, rank);
            long days = Math.floorDiv(time, 86400L);
            long secondOfDay = Math.floorMod(time, 86400L);
            return switch (part) {
                case HOUR -> secondOfDay / 3600;
                case MINUTE -> secondOfDay / 60 % 60;
                case SECOND -> secondOfDay % 60;
                case WEEK_DAY -> Math.floorMod(days + 4, 7L); // 1970-01-01 was a Thursday
                case IS_DST -> 0;
                case YEAR, MONTH, MONTH_DAY, YEAR_DAY -> civil(days, part);
            };
        }

        /** The year, month or day of the proleptic Gregorian calendar of days since 1970-01-01 (Hinnant's method). */
        static long civil(long days, Part part) {
            long z = days + 719468;
            long era = Math.floorDiv(z, 146097L);
            long dayOfEra = z - era * 146097;
            long yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365;
            long dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100); // from March 1st
            long shiftedMonth = (5 * dayOfYear + 2) / 153;
            long day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1;
            long month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
            long year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
            return switch (part) {
                case YEAR -> year;
                case MONTH -> month;
                case MONTH_DAY -> day;
                default -> { // day of the year, 0 on January 1st
                    boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
                    long fromMarch = dayOfYear; // March 1st is day 59 (60 in a leap year) of the calendar year
                    yield month <= 2 ? fromMarch - 306 : fromMarch + 59 + (leap ? 1 : 0);
                }
            };
        }
    }

    /** tostring(a): the value as a string (a float as %g). */
    static final class ToStringValue extends GroupValue {
        private final GroupValue argument;
        ToStringValue(GroupValue argument) { super(Type.STRING); this.argument = argument; }
        @Override public String string(int lid, double rank) { return argument.string(lid, rank); }
    }

    /** tolong(a): the value as an integer (a float rounded). */
    static final class ToIntegerValue extends GroupValue {
        private final GroupValue argument;
        ToIntegerValue(GroupValue argument) { super(Type.INTEGER); this.argument = argument; }
        @Override public long integer(int lid, double rank) { return argument.integer(lid, rank); }
    }

    /** todouble(a): the value as a float. */
    static final class ToFloatValue extends GroupValue {
        private final GroupValue argument;
        ToFloatValue(GroupValue argument) { super(Type.FLOAT); this.argument = argument; }
        @Override public double floating(int lid, double rank) { return argument.floating(lid, rank); }
    }

    /** strlen(a): the length in bytes of the value's UTF-8 string. */
    static final class StringLength extends GroupValue {
        private final GroupValue argument;
        StringLength(GroupValue argument) { super(Type.INTEGER); this.argument = argument; }
        @Override public long integer(int lid, double rank) {
            return argument.string(lid, rank).getBytes(StandardCharsets.UTF_8).length;
        }
    }

    /** strcat(a, b, ...): the strings of the values (integers in decimal) concatenated. */
    static final class StringConcatenation extends GroupValue {
        private final GroupValue[] arguments;
        private final StringBuilder text = new StringBuilder();
        StringConcatenation(GroupValue[] arguments) { super(Type.STRING); this.arguments = arguments; }
        @Override public String string(int lid, double rank) {
            text.setLength(0);
            for (GroupValue argument : arguments) {
                if (argument.type() == Type.INTEGER) text.append(argument.integer(lid, rank));
                else text.append(argument.string(lid, rank));
            }
            return text.toString();
        }
    }


    /** A float's bits as an integer (for writing the float's bytes). */
    static final class FloatBits extends GroupValue {
        private final GroupValue argument;
        FloatBits(GroupValue argument) { super(Type.INTEGER); this.argument = argument; }
        @Override public long integer(int lid, double rank) { return Double.doubleToRawLongBits(argument.floating(lid, rank)); }
    }


    /**
     * normalizesubject(a): the string without one leading "Re: ", "Fw: " or "Fwd: " (the first letter upper case,
     * the others either), as proton's NormalizeSubjectFunctionNode.
     */
    static final class NormalizedSubject extends GroupValue {
        private final GroupValue argument;
        NormalizedSubject(GroupValue argument) { super(Type.STRING); this.argument = argument; }
        @Override public String string(int lid, double rank) {
            String s = argument.string(lid, rank);
            return s.substring(prefix(s));
        }
        static int prefix(String s) {
            if (s.length() < 4) return 0;
            if (s.charAt(0) == 'R' && (s.charAt(1) | 0x20) == 'e' && s.charAt(2) == ':' && s.charAt(3) == ' ') return 4;
            if (s.charAt(0) == 'F' && (s.charAt(1) | 0x20) == 'w') {
                if (s.charAt(2) == ':' && s.charAt(3) == ' ') return 4;
                if ((s.charAt(2) | 0x20) == 'd' && s.charAt(3) == ':' && s.length() > 4 && s.charAt(4) == ' ') return 5;
            }
            return 0;
        }
    }

}
