package ai.dwell.runtime.index;

import com.yahoo.vespa.config.search.AttributesConfig;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The hamming and geodegrees metrics against distances computed by hand, and how a schema's metric and cell type choose one. */
public class DistanceMetricTest {

    @Test
    void hammingOfInt8CellsCountsDifferingBits() {
        // 0x0f^0x0e = 0x01: 1 bit; 0xff (-1) ^ 0x00: 8 bits; 0x00 ^ 0x80 (-128): 1 bit; 0x55 ^ 0x2a (85 ^ 42 = 0x7f): 7 bits
        float[] a = { 15, -1, 0, 85 };
        float[] b = { 14, 0, -128, 42 };
        assertEquals(17, DistanceMetric.HAMMING.distance(a, b));
        assertEquals(17, DistanceMetric.HAMMING.distance(b, a));
        assertEquals(0, DistanceMetric.HAMMING.distance(a, a));
        assertEquals(1.0 / 18, DistanceMetric.HAMMING.closeness(17), 1e-15);
        assertEquals(1.0 / 18, DistanceMetric.HAMMING.similarity(a, b), 1e-7);
        assertEquals(32, DistanceMetric.HAMMING.distance(new float[] { -1, -1, -1, -1 }, new float[4]), "every bit differs");
    }

    @Test
    void hammingOfOtherCellsCountsDifferingCells() {
        float[] a = { 1.5f, 2, 3, 0 };
        float[] b = { 1.5f, 2.5f, -3, 0 };
        assertEquals(2, DistanceMetric.HAMMING_CELLS.distance(a, b));
        assertEquals(1.0 / 3, DistanceMetric.HAMMING_CELLS.similarity(a, b), 1e-7);
    }

    @Test
    void geodegreesIsTheGreatCircleDistanceInKilometers() {
        // a quarter of a great circle: pi/2 times the mean radius
        assertEquals(Math.PI / 2 * 6371.0088, DistanceMetric.GEODEGREES.distance(new float[] { 0, 0 }, new float[] { 0, 90 }), 1e-9);
        assertEquals(Math.PI / 2 * 6371.0088, DistanceMetric.GEODEGREES.distance(new float[] { 0, 0 }, new float[] { 90, 45 }), 1e-9);
        // Oslo to Trondheim and San Francisco to Sydney, by the spherical law of cosines (another formula) on the same float inputs
        assertEquals(391.48087239109964, DistanceMetric.GEODEGREES.distance(new float[] { 59.9139f, 10.7522f }, new float[] { 63.4305f, 10.3951f }), 1e-6);
        assertEquals(11947.676408135887, DistanceMetric.GEODEGREES.distance(new float[] { 37.7749f, -122.4194f }, new float[] { -33.8688f, 151.2093f }), 1e-6);
        assertEquals(0, DistanceMetric.GEODEGREES.distance(new float[] { 10, 20 }, new float[] { 10, 20 }));
        assertEquals(1 / (1 + 391.48087239109964), DistanceMetric.GEODEGREES.closeness(391.48087239109964), 1e-15);
        assertTrue(DistanceMetric.GEODEGREES.similarity(new float[] { 59.9139f, 10.7522f }, new float[] { 63.4305f, 10.3951f }) >
                   DistanceMetric.GEODEGREES.similarity(new float[] { 37.7749f, -122.4194f }, new float[] { -33.8688f, 151.2093f }), "closer is more similar");
    }

    @Test
    void theSchemaChoosesTheMetricByCellType() {
        assertSame(DistanceMetric.HAMMING, DistanceMetric.of(attribute("tensor<int8>(x[16])", AttributesConfig.Attribute.Distancemetric.HAMMING)));
        assertSame(DistanceMetric.HAMMING, DistanceMetric.of(attribute("tensor<int8>(m{},x[16])", AttributesConfig.Attribute.Distancemetric.HAMMING)));
        assertSame(DistanceMetric.HAMMING_CELLS, DistanceMetric.of(attribute("tensor<float>(x[16])", AttributesConfig.Attribute.Distancemetric.HAMMING)));
        assertSame(DistanceMetric.HAMMING_CELLS, DistanceMetric.of(attribute("tensor<bfloat16>(x[16])", AttributesConfig.Attribute.Distancemetric.HAMMING)));
        assertSame(DistanceMetric.HAMMING_CELLS, DistanceMetric.of(attribute("tensor(x[16])", AttributesConfig.Attribute.Distancemetric.HAMMING)));
        assertSame(DistanceMetric.GEODEGREES, DistanceMetric.of(attribute("tensor<double>(x[2])", AttributesConfig.Attribute.Distancemetric.GEODEGREES)));
        var e = assertThrows(IllegalArgumentException.class,
                             () -> DistanceMetric.of(attribute("tensor<double>(x[3])", AttributesConfig.Attribute.Distancemetric.GEODEGREES)));
        assertTrue(e.getMessage().contains("geodegrees"), e.getMessage());
    }

    private static AttributesConfig.Attribute attribute(String type, AttributesConfig.Attribute.Distancemetric.Enum metric) {
        return new AttributesConfig.Attribute(new AttributesConfig.Attribute.Builder().name("v")
                                                      .datatype(AttributesConfig.Attribute.Datatype.TENSOR)
                                                      .tensortype(type).distancemetric(metric));
    }

}
