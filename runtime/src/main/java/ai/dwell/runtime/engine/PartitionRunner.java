package ai.dwell.runtime.engine;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;

/**
 * Runs the partitions of one query's work on the calling thread and on helpers from a shared executor.
 * Every participant takes the next partition not yet taken, the caller included, so the caller never
 * waits for a helper that has not started: on a busy executor the caller does all the partitions itself,
 * and a helper that starts late finds nothing left to do. Returns when every partition is done; a
 * failure in any partition is thrown to the caller.
 */
final class PartitionRunner {

    private final Executor executor; // null: everything on the caller

    PartitionRunner(Executor executor) { this.executor = executor; }

    void run(int partitions, IntConsumer work) {
        if (partitions <= 1 || executor == null) {
            for (int p = 0; p < partitions; p++) work.accept(p);
            return;
        }
        Job job = new Job(partitions, work);
        for (int helper = 1; helper < partitions; helper++) executor.execute(job);
        job.run();
        job.await();
    }

    private static final class Job implements Runnable {

        private final int partitions;
        private final IntConsumer work;
        private final AtomicInteger next = new AtomicInteger();
        private final CountDownLatch done;
        private volatile RuntimeException failure;

        Job(int partitions, IntConsumer work) {
            this.partitions = partitions;
            this.work = work;
            this.done = new CountDownLatch(partitions);
        }

        @Override
        public void run() {
            for (int p = next.getAndIncrement(); p < partitions; p = next.getAndIncrement()) {
                try {
                    work.accept(p);
                }
                catch (RuntimeException | Error e) {
                    failure = e instanceof RuntimeException r ? r : new IllegalStateException(e);
                }
                finally {
                    done.countDown();
                }
            }
        }

        void await() {
            boolean interrupted = false;
            while (true) {
                try {
                    done.await();
                    break;
                }
                catch (InterruptedException e) {
                    interrupted = true; // the partitions read the caller's arrays: wait for them to finish
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
            if (failure != null) throw failure;
        }

    }

}
