package ai.dwell.runtime.serve.access;

import com.yahoo.jdisc.Response;
import com.yahoo.jdisc.http.filter.DiscFilterRequest;
import com.yahoo.jdisc.http.filter.security.base.JsonSecurityRequestFilterBase;

import java.util.Optional;

/**
 * The container's request filter for {@link WriteAccess}: the runtime puts it in front of every
 * request of the served container (see deploy.AccessFilterChain).
 */
public class AccessFilter extends JsonSecurityRequestFilterBase {

    @Override
    protected Optional<ErrorResponse> filter(DiscFilterRequest request) {
        return WriteAccess.current()
                          .check(request.getMethod(), request.getUri().getRawPath(), request.getRemoteAddr(),
                                 request.getHeader("Authorization"))
                          .map(AccessFilter::errorResponse);
    }

    private static ErrorResponse errorResponse(WriteAccess.Refusal refusal) {
        Response response = new Response(refusal.status());
        if (refusal.status() == Response.Status.UNAUTHORIZED) response.headers().put("WWW-Authenticate", "Bearer");
        return new ErrorResponse(response, refusal.message());
    }

}
