"""dwell's corpus generator, feeder and live-traffic stream (see feed/README.md)."""
