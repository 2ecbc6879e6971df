package ai.dwell.runtime.serve.metrics;

import ai.vespa.metricsproxy.core.ConsumersConfig;
import ai.vespa.metricsproxy.core.MetricsConsumers;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.vespa.model.admin.metricsproxy.MetricsProxyContainerCluster;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * The metrics consumers of the model served now, as Vespa's config model gives them to its metrics proxy (its
 * ConsumersConfig: services.xml's admin/metrics consumers, each with Vespa's default metric set, and Vespa's own
 * consumers), read once per model.
 */
public final class ModelConsumers implements Supplier<Optional<ConsumerMetrics>> {

    private record Of(VespaModel model, ConsumerMetrics consumers) {}

    private final Supplier<VespaModel> serving;
    private volatile Of last;

    /** @param serving the model served now (null while none is) */
    public ModelConsumers(Supplier<VespaModel> serving) { this.serving = serving; }

    @Override
    public Optional<ConsumerMetrics> get() {
        VespaModel model = serving.get();
        if (model == null) return Optional.empty();
        Of of = last;
        if (of == null || of.model() != model) last = of = new Of(model, new ConsumerMetrics(of(model)));
        return Optional.of(of.consumers());
    }

    /** The consumers Vespa's model configures its metrics proxy with. */
    public static MetricsConsumers of(VespaModel model) {
        MetricsProxyContainerCluster proxies = model.getAdmin() == null ? null : model.getAdmin().getMetricsProxyCluster();
        if (proxies == null) throw new IllegalStateException("The model has no metrics proxy cluster to take the metrics consumers of");
        return new MetricsConsumers(model.getConfig(ConsumersConfig.class, proxies.getConfigId()));
    }

}
