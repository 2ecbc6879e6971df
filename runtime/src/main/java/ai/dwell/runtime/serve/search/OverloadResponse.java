package ai.dwell.runtime.serve.search;

import com.yahoo.jdisc.Response;
import com.yahoo.jdisc.handler.ResponseDispatch;
import com.yahoo.jdisc.handler.ResponseHandler;

/**
 * The answer to a query the runtime does not run: what Vespa's container answers when its search
 * thread pool is full (503, no body), with a header that says why.
 */
final class OverloadResponse {

    static final String REASON_HEADER = "X-Dwell-Overload";

    private OverloadResponse() {}

    static void dispatch(ResponseHandler handler, String reason) {
        Response response = new Response(Response.Status.SERVICE_UNAVAILABLE);
        response.setRequestType(com.yahoo.jdisc.Request.RequestType.READ);
        response.headers().add(REASON_HEADER, reason);
        ResponseDispatch.newInstance(response).dispatch(handler);
    }

}
