package ai.dwell.runtime.serve.container;

import com.yahoo.container.Container;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The runtime's {@code com.yahoo.container.Container} (in the place of Vespa's, with binding a thread to an instance): a thread bound to
 * a container's instance sees it, others the process-wide one, as Vespa's; unbinding gives the process-wide one back.
 */
public class ContainerInstanceTest {

    @Test
    void aBoundThreadSeesItsContainersInstanceAndOthersTheProcessWideOne() throws InterruptedException {
        Container processWide = Container.get();
        Container own = new Container();
        Container.bindToCurrentThread(own);
        try {
            assertSame(own, Container.get());
            AtomicReference<Container> seen = new AtomicReference<>();
            Thread other = new Thread(() -> seen.set(Container.get()));
            other.start();
            other.join();
            assertSame(processWide, seen.get());
        }
        finally {
            Container.bindToCurrentThread(null);
        }
        assertSame(processWide, Container.get());
    }

}
