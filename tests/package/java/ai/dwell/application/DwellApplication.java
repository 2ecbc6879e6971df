package ai.dwell.application;

import ai.vespa.rankingexpression.importer.onnx.OnnxImporter;
import com.yahoo.config.ConfigInstance;
import com.yahoo.config.application.api.ApplicationPackage;
import com.yahoo.config.model.NullConfigModelRegistry;
import com.yahoo.config.model.deploy.DeployState;
import com.yahoo.config.model.deploy.TestProperties;
import com.yahoo.config.model.application.provider.FilesApplicationPackage;
import com.yahoo.vespa.model.VespaModel;
import com.yahoo.vespa.model.application.validation.Validation;
import com.yahoo.config.model.api.ValidationParameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The built application package (target/application) as Vespa's config model sees it: the
 * same model that a config server builds on deploy, validated the same way.
 */
public final class DwellApplication {

    private static VespaModel built;

    private DwellApplication() {}

    /** The project root (dwell.root, set by the build, or the working directory). */
    public static Path root() {
        return Path.of(System.getProperty("dwell.root", ".")).toAbsolutePath().normalize();
    }

    /** The package as `mvn package` assembled it, bundles in components/ included. */
    public static Path packageDir() {
        Path dir = root().resolve("target/application");
        if ( ! Files.isDirectory(dir.resolve("components")))
            throw new IllegalStateException(dir + " is not built: run `mvn package` first (these tests run in `mvn verify`)");
        return dir;
    }

    /** The validated model of the built package, built once per JVM. */
    public static synchronized VespaModel model() {
        if (built == null) built = build(packageDir());
        return built;
    }

    /** Builds and validates the model of the package in this directory, as a deploy would. */
    public static VespaModel build(Path applicationDir) {
        try {
            ApplicationPackage app = FilesApplicationPackage.fromDir(applicationDir.toFile(), Map.of());
            DeployState state = new DeployState.Builder().applicationPackage(app)
                                                        .properties(new TestProperties())
                                                        .modelImporters(List.of(new OnnxImporter()))
                                                        .build();
            VespaModel model = new VespaModel(new NullConfigModelRegistry(), state);
            var parameters = new ValidationParameters(ValidationParameters.IgnoreValidationErrors.TRUE,
                                                      ValidationParameters.FailOnIncompatibleChange.TRUE,
                                                      ValidationParameters.CheckRouting.TRUE);
            new Validation().validate(model, parameters, state);
            return model;
        }
        catch (RuntimeException e) {
            throw e;
        }
        catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    /** A config of the model of the built package, for a config id such as "dwell/search/cluster.dwell/comment". */
    public static <T extends ConfigInstance> T config(Class<T> type, String configId) {
        return model().getConfig(type, configId);
    }

}
