package ai.dwell.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Queries in vespa-fbench's format: one /search/?... path a line; in POST mode a path line is
 * followed by the lines of its body.
 */
record QueryFile(List<Query> queries) {

    record Query(String path, String body) {}

    static QueryFile read(Path file, boolean post) throws IOException {
        List<Query> queries = new ArrayList<>();
        String path = null;
        StringBuilder body = new StringBuilder();
        for (String line : Files.readAllLines(file)) {
            if (line.isBlank()) continue;
            if ( ! post) {
                queries.add(new Query(line.trim(), null));
                continue;
            }
            if (line.startsWith("/")) {
                if (path != null) queries.add(new Query(path, body.toString()));
                path = line.trim();
                body.setLength(0);
            }
            else {
                body.append(line).append('\n');
            }
        }
        if (post && path != null) queries.add(new Query(path, body.toString()));
        if (queries.isEmpty()) throw new IllegalArgumentException("No queries in " + file);
        return new QueryFile(queries);
    }

    Query get(long i) { return queries.get((int) (i % queries.size())); }

}
