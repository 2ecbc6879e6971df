package ai.dwell.runtime.serve.deploy;

import ai.vespa.rankingexpression.importer.lightgbm.LightGBMImporter;
import ai.vespa.rankingexpression.importer.onnx.OnnxImporter;
import ai.vespa.rankingexpression.importer.vespa.VespaImporter;
import ai.vespa.rankingexpression.importer.xgboost.XGBoostImporter;
import com.yahoo.config.model.NullConfigModelRegistry;
import com.yahoo.config.model.api.ConfigChangeAction;
import com.yahoo.config.model.api.ValidationParameters;
import com.yahoo.config.model.application.provider.ApplicationPackageXmlFilesValidator;
import com.yahoo.config.model.application.provider.FilesApplicationPackage;
import com.yahoo.component.Version;
import com.yahoo.component.Vtag;
import com.yahoo.vespa.config.VespaVersion;
import com.yahoo.config.model.deploy.DeployState;
import com.yahoo.config.model.deploy.TestProperties;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.vespa.model.application.validation.Validation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;

/**
 * Builds and validates Vespa's config model of a package, as a config server does on deploy.
 * Every config the runtime serves is taken from this model.
 */
public final class ModelBuilder {

    private ModelBuilder() {}

    /**
     * The model, the deploy log (warnings and info Vespa wrote while building it), and the actions the change from the
     * previous model needs (Vespa's change validators: restart, refeed, reindex), empty on a first deploy.
     */
    public record Built(VespaModel model, List<String> log, List<ConfigChangeAction> actions) {}

    public static Built build(Path applicationDir) { return build(applicationDir, Optional.empty()); }

    /** Builds and validates the package, and the change from the previous model of the same application, if any. */
    public static Built build(Path applicationDir, Optional<VespaModel> previous) {
        List<String> log = new ArrayList<>();
        try {
            // services.xml and hosts.xml against Vespa's schemas, as the config server checks them
            ApplicationPackageXmlFilesValidator.create(applicationDir.toFile(), new Version(VespaVersion.major)).checkApplication();
            DeployState.Builder builder = new DeployState.Builder();
            previous.ifPresent(builder::previousModel);
            DeployState state = builder
                    .applicationPackage(FilesApplicationPackage.fromDir(applicationDir.toFile(), Map.of()))
                    .configDefinitionRepo(PlatformConfigDefinitions.ofClassPath()) // as a config server has the platform's installed
                    .modelImporters(List.of(new VespaImporter(), new OnnxImporter(), new XGBoostImporter(), new LightGBMImporter()))
                    .deployLogger((level, message) -> { if (level.intValue() >= Level.INFO.intValue()) log.add(level + ": " + message); })
                    .properties(new TestProperties())
                    .vespaVersion(Vtag.currentVersion) // as the config server builds it (the builder's default is 1.0.0), for services.xml's minimum-required-vespa-version
                    .build();
            VespaModel model = new VespaModel(new NullConfigModelRegistry(), state);
            List<ConfigChangeAction> actions = new Validation().validate(model,
                                      new ValidationParameters(ValidationParameters.IgnoreValidationErrors.FALSE,
                                                               ValidationParameters.FailOnIncompatibleChange.FALSE,
                                                               ValidationParameters.CheckRouting.TRUE),
                                      state);
            return new Built(model, log, List.copyOf(actions));
        }
        catch (InvalidApplicationException e) {
            throw e;
        }
        catch (Exception e) {
            throw new InvalidApplicationException(messages(e), e);
        }
    }

    /** Vespa's messages, outermost first, as the config server reports them. */
    public static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() == null || b.indexOf(t.getMessage()) >= 0) continue;
            if ( ! b.isEmpty()) b.append(": ");
            b.append(t.getMessage());
        }
        return b.isEmpty() ? e.toString() : b.toString();
    }

}
